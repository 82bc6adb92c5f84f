import { expect } from 'chai';
import { parseEnvFile } from '../../../config/env-file.js';

const parse = (text: string) => Object.fromEntries(parseEnvFile(text));

describe('config/env-file parseEnvFile', () => {
  it('reads KEY=VALUE and export KEY=VALUE, trimming spaces', () => {
    expect(parse('A=1\nexport B = two \n  C=three')).to.deep.equal({ A: '1', B: 'two', C: 'three' });
  });

  it('skips comments, blank lines and malformed lines', () => {
    expect(parse('# comment\n\n   \nnot a pair\n=novalue\n1BAD=x\nGOOD=yes\n')).to.deep.equal({
      GOOD: 'yes',
    });
  });

  it('strips inline comments only after whitespace', () => {
    expect(parse('A=value # note\nB=a#b\nC=#all comment\n')).to.deep.equal({ A: 'value', B: 'a#b', C: '' });
  });

  it('keeps single-quoted and backtick values literally', () => {
    expect(parse("A='x \\n # y'\nB=`z \\t`")).to.deep.equal({ A: 'x \\n # y', B: 'z \\t' });
  });

  it('expands escapes in double quotes', () => {
    expect(parse('A="line1\\nline2\\t\\"q\\" \\\\ \\x"')).to.deep.equal({ A: 'line1\nline2\t"q" \\ \\x' });
  });

  it('allows a comment after a closing quote', () => {
    expect(parse('A="v" # note')).to.deep.equal({ A: 'v' });
  });

  it('reads quoted values that span lines', () => {
    expect(parse('KEY="-----BEGIN\nabc\n-----END"\nNEXT=1')).to.deep.equal({
      KEY: '-----BEGIN\nabc\n-----END',
      NEXT: '1',
    });
  });

  it('skips an unterminated quote or junk after the quote, but not the following lines', () => {
    expect(parse('A="open\nB=2\nC="x" junk\nD=4')).to.deep.equal({ B: '2', D: '4' });
  });

  it('handles empty values, CRLF, a BOM, and later duplicates winning', () => {
    expect(parse('\uFEFFA=\r\nB=""\r\nB=second\r\n')).to.deep.equal({ A: '', B: 'second' });
  });

  it('keeps __proto__ as an ordinary key', () => {
    const values = parseEnvFile('__proto__=x');
    expect(values.get('__proto__')).to.equal('x');
  });
});
