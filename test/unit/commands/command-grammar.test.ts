import { expect } from 'chai';
import {
  COMMANDS,
  helpText,
  parseCommand,
  readsCodebaseFiles,
} from '../../../domain/commands/command-grammar.js';

const RUN_ID = '0b7c4a1e-5f7d-4c1a-9e43-2f1f0d2c9a11';

describe('commands/parseCommand (the one grammar of every door)', () => {
  it('reads each command with its arguments', () => {
    expect(parseCommand('/help')).to.deep.equal({ kind: 'command', command: { name: 'help' } });
    expect(parseCommand('  /STATUS  ')).to.deep.equal({ kind: 'command', command: { name: 'status' } });
    expect(parseCommand('/cancel')).to.deep.equal({ kind: 'command', command: { name: 'cancel' } });
    expect(parseCommand('/new')).to.deep.equal({ kind: 'command', command: { name: 'new' } });
    expect(parseCommand('/codebase')).to.deep.equal({ kind: 'command', command: { name: 'codebase' } });
    expect(parseCommand('/codebase https://example.com/a/b.git')).to.deep.equal({
      kind: 'command',
      command: { name: 'codebase', target: 'https://example.com/a/b.git' },
    });
    expect(parseCommand('/workflow list')).to.deep.equal({
      kind: 'command',
      command: { name: 'workflow list' },
    });
    expect(parseCommand('/workflow run review-pr check the tests\nand the docs')).to.deep.equal({
      kind: 'command',
      command: { name: 'workflow run', workflow: 'review-pr', message: 'check the tests\nand the docs' },
    });
    expect(parseCommand('/workflow run fix')).to.deep.equal({
      kind: 'command',
      command: { name: 'workflow run', workflow: 'fix', message: '' },
    });
  });

  it('takes a run id first in /approve and /reject only when it is one', () => {
    expect(parseCommand('/approve')).to.deep.equal({ kind: 'command', command: { name: 'approve' } });
    expect(parseCommand('/approve looks good')).to.deep.equal({
      kind: 'command',
      command: { name: 'approve', comment: 'looks good' },
    });
    expect(parseCommand(`/approve ${RUN_ID.toUpperCase()} ship it`)).to.deep.equal({
      kind: 'command',
      command: { name: 'approve', runId: RUN_ID, comment: 'ship it' },
    });
    expect(parseCommand(`/reject ${RUN_ID} the tests are red`)).to.deep.equal({
      kind: 'command',
      command: { name: 'reject', runId: RUN_ID, reason: 'the tests are red' },
    });
    expect(parseCommand('/reject too risky')).to.deep.equal({
      kind: 'command',
      command: { name: 'reject', reason: 'too risky' },
    });
  });

  it("reads Telegram's /command@BotName as the command", () => {
    expect(parseCommand('/status@CairnBot')).to.deep.equal({ kind: 'command', command: { name: 'status' } });
  });

  it('tells a misused command from an unknown one, and a message from both', () => {
    expect(parseCommand('/reject')).to.deep.equal({
      kind: 'invalid',
      name: 'reject',
      problem: 'needs the reason',
    });
    expect(parseCommand(`/reject ${RUN_ID}`)).to.include({ kind: 'invalid', name: 'reject' });
    expect(parseCommand('/status now')).to.include({ kind: 'invalid', name: 'status' });
    expect(parseCommand('/workflow')).to.include({ kind: 'invalid', name: 'workflow run' });
    expect(parseCommand('/workflow delete x')).to.include({ kind: 'invalid', name: 'workflow run' });
    expect(parseCommand('/workflow run ../../etc')).to.include({ kind: 'invalid', name: 'workflow run' });
    expect(parseCommand('/workflow list all')).to.include({ kind: 'invalid', name: 'workflow list' });
    expect(parseCommand('/deploy now')).to.deep.equal({ kind: 'unknown', word: '/deploy' });
    // Not commands: ordinary text, and paths a user pastes.
    expect(parseCommand('please /status')).to.deep.equal({ kind: 'message' });
    expect(parseCommand('/usr/lib/libfoo.so is missing')).to.deep.equal({ kind: 'message' });
    expect(parseCommand('/')).to.deep.equal({ kind: 'message' });
    expect(parseCommand(`/status ${'x'.repeat(9_000)}`)).to.deep.equal({ kind: 'message' });
  });

  it("tells what reads the codebase's files (a message, the workflow commands) from what reads only Cairn's state", () => {
    const reads = (text: string) => readsCodebaseFiles(parseCommand(text));
    for (const text of [
      'why does the build fail?',
      '/workflow list',
      '/workflow run review-pr look',
      '/usr/lib is gone',
    ])
      expect(reads(text), text).to.equal(true);
    for (const text of [
      '/status',
      '/cancel',
      '/help',
      '/new',
      '/codebase',
      '/approve ok',
      '/reject no',
      '/nope',
      '/status now',
    ])
      expect(reads(text), text).to.equal(false);
  });

  it('lists every command in the help, once', () => {
    const help = helpText();
    for (const command of COMMANDS) expect(help).to.include(command.usage);
    expect(new Set(COMMANDS.map((command) => command.name)).size).to.equal(COMMANDS.length);
  });
});
