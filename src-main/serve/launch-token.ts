/**
 * The control API's token, kept in the data folder so that a browser tab opened with it keeps
 * working across restarts of `hookbench serve` on that folder. The file is the owner's only, like
 * everything else there: whoever can read it can already read the log itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tightenPrivateFile, writePrivateFile } from '../engine/store/private-files';
import { generateToken } from './auth';

export const TOKEN_FILE = 'launch-token';

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,200}$/;

export type TokenSource = 'env' | 'kept' | 'new';

/** Pure: which token a start uses, given HOOKBENCH_TOKEN, the kept one and --new-token. */
export function chooseToken(fromEnv: string | undefined, kept: string | null, renew: boolean): { token: string | null; source: TokenSource } {
  if (fromEnv !== undefined) return { token: fromEnv, source: 'env' };
  if (kept !== null && !renew) return { token: kept, source: 'kept' };
  return { token: null, source: 'new' };
}

/** The token kept in this folder, or null when there is none or it is not one we would have written. */
export function readKeptToken(dataDir: string): string | null {
  const path = join(dataDir, TOKEN_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (!TOKEN_SHAPE.test(text)) return null;
  tightenPrivateFile(path);
  return text;
}

/**
 * The token for this start: HOOKBENCH_TOKEN when set (and then the file is left alone), else the
 * folder's kept one, else (or with --new-token) a fresh one that is kept from then on.
 */
export function launchToken(dataDir: string, fromEnv: string | undefined, renew: boolean): { token: string; source: TokenSource } {
  const choice = chooseToken(fromEnv, fromEnv === undefined ? readKeptToken(dataDir) : null, renew);
  if (choice.token !== null) return { token: choice.token, source: choice.source };
  const token = generateToken();
  writePrivateFile(join(dataDir, TOKEN_FILE), `${token}\n`);
  return { token, source: 'new' };
}
