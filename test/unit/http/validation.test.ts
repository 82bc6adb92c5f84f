import { expect } from 'chai';
import { SchemaCompiler } from '../../../api/http/validation.js';

describe('http kit: schema compiler', () => {
  const compiler = new SchemaCompiler({
    Name: { type: 'string', minLength: 1 },
    Pair: { type: 'object', properties: { left: { $ref: '#/components/schemas/Name' } }, required: ['left'] },
  });

  it('accepts "one of these fields" bodies and reports each branch', () => {
    const validate = compiler.compile(
      {
        type: 'object',
        properties: {
          url: { type: 'string', format: 'uri', example: 'https://example.com/r.git' },
          path: { type: 'string' },
        },
        anyOf: [{ required: ['url'] }, { required: ['path'] }],
        additionalProperties: false,
      },
      'body',
      'test',
    );
    expect(validate({ url: 'https://example.com/r.git' })).to.deep.equal([]);
    expect(validate({ path: '/srv/repo' })).to.deep.equal([]);
    expect(validate({}).map((error) => error.path)).to.include.members(['/body/url', '/body/path']);
  });

  it('coerces query values into arrays and applies defaults, but never coerces bodies', () => {
    const schema = {
      type: 'object',
      properties: {
        ids: { type: 'array', items: { type: 'integer' } },
        deleted: { type: 'boolean', default: false },
      },
    };
    const query: Record<string, unknown> = { ids: '3' };
    expect(compiler.compile(schema, 'query', 'test')(query)).to.deep.equal([]);
    expect(query).to.deep.equal({ ids: [3], deleted: false });
    expect(compiler.compile(schema, 'body', 'test')({ ids: '3' })).to.deep.equal([
      { path: '/body/ids', message: 'must be array' },
    ]);
  });

  it('resolves component references, also between components', () => {
    const validate = compiler.compile({ $ref: '#/components/schemas/Pair' }, 'body', 'test');
    expect(validate({ left: 'a' })).to.deep.equal([]);
    expect(validate({ left: '' })).to.deep.equal([
      { path: '/body/left', message: 'must NOT have fewer than 1 characters' },
    ]);
  });

  it('escapes field names in error paths as JSON Pointer', () => {
    const validate = compiler.compile(
      { type: 'object', properties: { 'a/b': { type: 'string' } }, required: ['a/b'] },
      'body',
      'test',
    );
    expect(validate({})).to.deep.equal([{ path: '/body/a~1b', message: 'is required' }]);
  });

  it('refuses schemas with unknown keywords or mistyped keywords', () => {
    expect(() => compiler.compile({ type: 'string', minimun: 3 }, 'body', 'typo')).to.throw(
      /unknown keyword/,
    );
    expect(() =>
      compiler.compile(
        { type: 'object', properties: { a: { type: 'string', minimum: 3 } } },
        'body',
        'types',
      ),
    ).to.throw(/strictTypes/);
  });
});
