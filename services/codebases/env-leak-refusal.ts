import { ServiceError } from '../service-error.js';
import type { EnvLeakScan } from './env-leak-scan.js';
import { envLeakProblemDetail } from './env-leak-gate.js';

/** The 422 refusal naming the files and keys, why they matter, and the three ways out. */
export function envLeakRefusal(scan: EnvLeakScan, checkedPath: string): ServiceError {
  const explanation = envLeakProblemDetail(scan, checkedPath);
  return new ServiceError({
    kind: 'unprocessable',
    code: 'env_leak_detected',
    detail: explanation.detail,
    extra: { files: explanation.files, remedies: explanation.remedies, scanStatus: scan.scanStatus },
  });
}
