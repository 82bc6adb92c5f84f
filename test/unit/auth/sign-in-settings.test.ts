import { expect } from 'chai';
import { readEnvironment } from '../../../config/environment.js';
import { ConfigError } from '../../../config/errors.js';
import { passwordHashProblem, readSignInSettings } from '../../../config/sign-in-settings.js';
import { createContext } from '../../../cli/boot/context.js';
import { checkSignIn } from '../../../cli/doctor/checks.js';
import { makeTempDir } from '../../support/temp-dirs.js';

const ARGON2ID =
  '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$2nqyVvG5ozqO0M3DNtm9y0tdGGCn8cyY9S0Vc/nRD5Q';
const BCRYPT = '$2a$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW';
const SECRET = 'ab'.repeat(32);

const settingsOf = (env: NodeJS.ProcessEnv) => readSignInSettings(readEnvironment(env));

function configError(action: () => unknown): ConfigError {
  try {
    action();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('sign-in settings', () => {
  it('is open when nothing is set, token-only with CAIRN_API_TOKEN, form with the three form variables', () => {
    expect(settingsOf({})).to.deep.equal({
      mode: 'open',
      form: undefined,
      apiToken: undefined,
      trustProxy: false,
    });
    const token = 'x'.repeat(32);
    expect(settingsOf({ CAIRN_API_TOKEN: token })).to.include({ mode: 'token', apiToken: token });

    const form = settingsOf({
      AUTH_USERNAME: 'ada',
      AUTH_PASSWORD_HASH: ARGON2ID,
      COOKIE_SECRET: SECRET,
      COOKIE_MAX_AGE: '600',
      TRUST_PROXY: 'true',
    });
    expect(form.mode).to.equal('form');
    expect(form.trustProxy).to.equal(true);
    expect(form.form).to.deep.include({ username: 'ada', passwordHash: ARGON2ID, cookieMaxAgeSeconds: 600 });
    expect(form.form!.cookieSecret.equals(Buffer.from(SECRET, 'hex'))).to.equal(true);
  });

  it('refuses half a form configuration, naming each missing variable', () => {
    const error = configError(() => settingsOf({ AUTH_USERNAME: 'ada' }));
    expect(error.names).to.deep.equal(['AUTH_PASSWORD_HASH', 'COOKIE_SECRET']);
    const other = configError(() => settingsOf({ AUTH_PASSWORD_HASH: ARGON2ID, COOKIE_SECRET: SECRET }));
    expect(other.names).to.deep.equal(['AUTH_USERNAME']);
  });

  it('refuses a hash it cannot check, or one that would take seconds, without echoing it', () => {
    const base = { AUTH_USERNAME: 'ada', COOKIE_SECRET: SECRET };
    for (const hash of [
      'hunter2',
      '$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA',
      '$1$md5$x',
    ]) {
      const error = configError(() => settingsOf({ ...base, AUTH_PASSWORD_HASH: hash }));
      expect(error.names).to.deep.equal(['AUTH_PASSWORD_HASH']);
      expect(error.message).to.not.include(hash);
    }
    expect(passwordHashProblem(ARGON2ID.replace('m=19456', 'm=4194304'))).to.match(/more than 262144 KiB/);
    expect(passwordHashProblem(BCRYPT.replace('$12$', '$17$'))).to.equal('has bcrypt cost 17; use 4 to 14');
  });

  it('takes argon2id and every bcrypt spelling (htpasswd, Caddy, libraries)', () => {
    expect(passwordHashProblem(ARGON2ID)).to.equal(undefined);
    for (const prefix of ['$2a$', '$2b$', '$2y$'])
      expect(passwordHashProblem(prefix + BCRYPT.slice(4)), prefix).to.equal(undefined);
  });

  it('checks the secret and the token for shape, never printing them', () => {
    const secret = 'g'.repeat(64);
    const error = configError(() =>
      readEnvironment({ COOKIE_SECRET: secret, CAIRN_API_TOKEN: 'short secret' }),
    );
    expect(error.names).to.have.members(['COOKIE_SECRET', 'CAIRN_API_TOKEN']);
    expect(error.message).to.not.include(secret).and.not.include('short secret');
  });
});

describe('cairn doctor: sign-in', () => {
  const home = makeTempDir('cairn-doctor-home-');
  after(() => home.cleanup());
  const doctor = (env: NodeJS.ProcessEnv) =>
    checkSignIn(createContext({ env: { CAIRN_HOME: home.path, ...env }, cwd: home.path, createHome: false }));
  const form = { AUTH_USERNAME: 'ada', AUTH_PASSWORD_HASH: ARGON2ID, COOKIE_SECRET: SECRET };

  it('is fine when off on loopback, and warns when off on a network interface', () => {
    expect(doctor({})).to.deep.include({ status: 'ok', detail: 'off; the API listens on 127.0.0.1 only' });
    const open = doctor({ HOST: '0.0.0.0' });
    expect(open.status).to.equal('warn');
    expect(open.detail).to.include('anyone who reaches the port');
  });

  it('names the ways in, and warns behind an https proxy that is not trusted', () => {
    expect(doctor({ ...form, CAIRN_API_TOKEN: 'k'.repeat(40) })).to.deep.include({
      status: 'ok',
      detail: 'password sign-in for "ada" (sessions of 86400 s) and API token',
    });
    expect(doctor({ ...form, DOMAIN: 'cairn.example' }).status).to.equal('warn');
    expect(doctor({ ...form, DOMAIN: 'cairn.example', TRUST_PROXY: 'true' }).status).to.equal('ok');
  });
});
