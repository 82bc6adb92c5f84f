import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  isLocalUrl,
  localIdentity,
  remoteRepositoryIdentity,
  RepositoryUrlError,
  type RepositoryIdentity,
} from '../../domain/codebases/repository-identity.js';
import { RegistrationError } from './registration-outcome.js';

/** Identity of a registration URL; local ones (file://, absolute paths) by their real path. */
export function identityForUrl(url: string): RepositoryIdentity {
  try {
    if (!isLocalUrl(url)) return remoteRepositoryIdentity(url);
    const path = url.startsWith('file://') ? fileURLToPath(url) : url;
    if (!existsSync(path)) throw new RegistrationError('clone_failed', `${url} does not exist`);
    return localIdentity(realpathSync(path), url);
  } catch (error) {
    if (error instanceof RepositoryUrlError) throw new RegistrationError('invalid_url', error.message);
    if (error instanceof TypeError)
      throw new RegistrationError('invalid_url', `${url} is not a valid file URL`);
    throw error;
  }
}
