import { HttpProblem } from '../../http/index.js';
import type { EnvLeakScan } from '../../../services/codebases/env-leak-scan.js';
import { envLeakProblemDetail } from '../../../services/codebases/env-leak-gate.js';

/** 422 naming the files and keys, why they matter, and the three ways out. */
export function envLeakProblem(scan: EnvLeakScan, checkedPath: string): HttpProblem {
  const explanation = envLeakProblemDetail(scan, checkedPath);
  return new HttpProblem({
    status: 422,
    code: 'env_leak_detected',
    detail: explanation.detail,
    extra: { files: explanation.files, remedies: explanation.remedies, scanStatus: scan.scanStatus },
  });
}
