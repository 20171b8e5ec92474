import type { CairnConfig } from '../config/load-config.js';
import { describeStore } from '../runtime/open-store.js';

/** Turns the usual start-up failures into one line that says what to do; undefined when it has nothing better. */
export function explainStartupError(error: unknown, config: CairnConfig | undefined): string | undefined {
  const code = (error as { code?: string }).code ?? '';
  const where = config ? describeStore(config) : 'the database';
  if (['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(code)) {
    return `Cannot reach ${where} (${code}). Start PostgreSQL, or fix DATABASE_URL (unset it to use the embedded SQLite).`;
  }
  if (code === '28P01' || code === '28000')
    return `PostgreSQL refused the credentials in DATABASE_URL for ${where}. Fix the user or password.`;
  if (code === '3D000')
    return `The database named in DATABASE_URL does not exist (${where}). Create it (createdb) or point DATABASE_URL at one that does.`;
  if (['SQLITE_CANTOPEN', 'EACCES', 'EROFS', 'ENOTDIR', 'EPERM'].includes(code)) {
    return `Cannot open ${where}: the data folder is not writable. Set CAIRN_DATA_DIR to a folder Cairn may write to.`;
  }
  if (code === 'EADDRINUSE')
    return `Port ${config?.port} on ${config?.host} is already in use. Stop the other process or set PORT to a free port.`;
  return undefined;
}
