import { expect } from 'chai';
import { readEnvironment } from '../../../config/environment.js';
import {
  displayEndpoint,
  parseOtlpHeaders,
  tracingSettings,
} from '../../../infra/telemetry/tracing-settings.js';

const settingsOf = (env: NodeJS.ProcessEnv, role: 'all' | 'api' | 'worker' = 'all') =>
  tracingSettings(readEnvironment(env).tracing, role, '1.2.3');

describe('tracing settings', () => {
  it('are off without an OTLP endpoint, whatever else is set', () => {
    expect(settingsOf({})).to.equal(undefined);
    expect(settingsOf({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).to.equal(undefined);
  });

  it('post to <endpoint>/v1/traces, or to the traces endpoint as given', () => {
    expect(settingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.url).to.equal(
      'http://collector:4318/v1/traces',
    );
    const both = settingsOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/otlp/v1/traces',
    });
    expect(both?.url).to.equal('http://tempo:4318/otlp/v1/traces');
  });

  it('name the service by the process role unless OTEL_SERVICE_NAME says otherwise', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(settingsOf(env, 'all')?.serviceName).to.equal('cairn');
    expect(settingsOf(env, 'api')?.serviceName).to.equal('cairn-api');
    expect(settingsOf(env, 'worker')?.serviceName).to.equal('cairn-worker');
    expect(settingsOf({ ...env, OTEL_SERVICE_NAME: 'shop-cairn' }, 'api')?.serviceName).to.equal(
      'shop-cairn',
    );
  });

  it('keep a tenth of new traces by default, protobuf encoded', () => {
    const settings = settingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' });
    expect(settings).to.include({
      sampler: 'parentbased_traceidratio',
      ratio: 0.1,
      protocol: 'http/protobuf',
      serviceVersion: '1.2.3',
    });
  });

  it('refuse a sampler, ratio or protocol they do not know, naming the variable', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(() => settingsOf({ ...base, OTEL_TRACES_SAMPLER: 'sometimes' })).to.throw(/OTEL_TRACES_SAMPLER/);
    expect(() => settingsOf({ ...base, OTEL_TRACES_SAMPLER_ARG: '1.5' })).to.throw(/OTEL_TRACES_SAMPLER_ARG/);
    expect(() => settingsOf({ ...base, OTEL_TRACES_SAMPLER_ARG: 'half' })).to.throw(
      /OTEL_TRACES_SAMPLER_ARG/,
    );
    expect(() => settingsOf({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).to.throw(
      /OTEL_EXPORTER_OTLP_PROTOCOL/,
    );
    const ratio = settingsOf({
      ...base,
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(ratio).to.include({ sampler: 'traceidratio', ratio: 0.25 });
  });

  it('read OTEL_EXPORTER_OTLP_HEADERS as percent-encoded key=value pairs', () => {
    expect(parseOtlpHeaders('api-key=a%20b,x-tenant = shop ,broken')).to.deep.equal({
      'api-key': 'a b',
      'x-tenant': 'shop',
    });
    expect(parseOtlpHeaders(undefined)).to.deep.equal({});
  });

  it('show an endpoint without its credentials or query', () => {
    expect(displayEndpoint('https://user:secret@collector.example:4318/v1/traces?token=x')).to.equal(
      'https://collector.example:4318/v1/traces',
    );
  });
});
