import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { bcrypt } from 'hash-wasm';
import { passwordHashProblem } from '../../../config/sign-in-settings.js';
import { hashPassword, verifyPassword } from '../../../infra/crypto/password-hash.js';

describe('password hashes', () => {
  it('hashes with argon2id, a fresh salt each time, and verifies only the right password', async () => {
    const first = await hashPassword('pass phrase');
    const second = await hashPassword('pass phrase');
    expect(first).to.match(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(first).to.not.equal(second);
    expect(passwordHashProblem(first)).to.equal(undefined);
    expect(await verifyPassword('pass phrase', first)).to.equal(true);
    expect(await verifyPassword('pass phrase ', first)).to.equal(false);
    expect(await verifyPassword('', first)).to.equal(false);
  });

  it('verifies bcrypt hashes whichever of $2a$, $2b$, $2y$ they carry', async () => {
    const hash = await bcrypt({
      password: 'hunter2',
      salt: randomBytes(16),
      costFactor: 4,
      outputType: 'encoded',
    });
    for (const prefix of ['$2a$', '$2b$', '$2y$']) {
      const spelled = prefix + hash.slice(4);
      expect(await verifyPassword('hunter2', spelled), prefix).to.equal(true);
      expect(await verifyPassword('hunter3', spelled), prefix).to.equal(false);
    }
  });

  it('leaves the main thread free while it verifies (a slow hash does not stall requests)', async () => {
    const slow = await bcrypt({
      password: 'x',
      salt: randomBytes(16),
      costFactor: 11,
      outputType: 'encoded',
    });
    // Warmed up first, so the ticks below are not those of loading the hash code.
    await verifyPassword('x', slow);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      expect(await verifyPassword('x', slow)).to.equal(true);
    } finally {
      clearInterval(timer);
    }
    // Computed on this thread, not one tick could run until the check was over.
    expect(ticks).to.be.greaterThan(1);
  });

  it('rejects, rather than answers false, for a hash it cannot read', async () => {
    let error: unknown;
    try {
      await verifyPassword('x', '$argon2id$v=19$m=19456,t=2,p=1$bad$bad');
    } catch (caught) {
      error = caught;
    }
    expect(String(error)).to.match(/password hash not usable/);
  });
});
