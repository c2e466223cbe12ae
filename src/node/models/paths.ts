// Where Hugging Face tools keep things, read from the environment, and what the user typed, told apart as a path or a
// Hub id.
import * as os from 'node:os';
import * as path from 'node:path';
import { readBounded } from '../read';
import type { Env } from './types';

// Paths: the home directory, the caches and the token, from the environment as Hugging Face tools read it.

export function homeDir(env: Env): string {
  return env.HOME || env.USERPROFILE || os.homedir();
}

export function expandHome(p: string, home: string): string {
  return p === '~' ? home : /^~[\\/]/.test(p) ? path.join(home, p.slice(2)) : p;
}

function hfHome(env: Env, home: string): string {
  if (env.HF_HOME) return expandHome(env.HF_HOME, home);
  return path.join(
    env.XDG_CACHE_HOME ? expandHome(env.XDG_CACHE_HOME, home) : path.join(home, '.cache'),
    'huggingface',
  );
}

/** The Hugging Face hub cache: HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub (as huggingface_hub does). */
export function hfHubCacheDir(env: Env): string {
  const home = homeDir(env);
  const explicit = env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE;
  return explicit ? expandHome(explicit, home) : path.join(hfHome(env, home), 'hub');
}

/** Our cache of Hub look-ups (config.json and counted parameters), one JSON file per repo and revision. */
export function vramLensCacheDir(env: Env): string {
  const home = homeDir(env);
  return path.join(
    env.XDG_CACHE_HOME ? expandHome(env.XDG_CACHE_HOME, home) : path.join(home, '.cache'),
    'vram-lens',
    'hub',
  );
}

/** The Hub token: HF_TOKEN, HUGGING_FACE_HUB_TOKEN, then the file at HF_TOKEN_PATH or HF_HOME/token. */
export function findHfToken(env: Env): { readonly token: string; readonly from: string } | undefined {
  for (const name of ['HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN']) {
    const t = env[name]?.trim();
    if (t) return { token: t, from: name };
  }
  const home = homeDir(env);
  const file = env.HF_TOKEN_PATH ? expandHome(env.HF_TOKEN_PATH, home) : path.join(hfHome(env, home), 'token');
  const read = readBounded(file, 'dependency');
  const t = read.ok ? read.text.trim() : '';
  return t ? { token: t, from: file } : undefined;
}

// References: what the user typed, told apart as a path or a Hub id.

export interface HubRef {
  /** 'org/name' or a legacy single-segment id such as 'gpt2'. */
  readonly id: string;
  /** A branch, tag or commit given as `org/name@rev`. */
  readonly revision?: string;
}

/** True for references that can only be paths: ./x, ../x, /x, ~/x, C:\x, anything with a backslash or ending in .json. */
export function looksLikePath(ref: string): boolean {
  return (
    /^(\.{1,2}([\\/]|$)|~([\\/]|$)|[\\/])/.test(ref) ||
    /^[A-Za-z]:[\\/]/.test(ref) ||
    ref.includes('\\') ||
    /\.json$/i.test(ref)
  );
}

export function parseHubRef(ref: string): HubRef | undefined {
  const m = /^([A-Za-z0-9][\w.-]*(?:\/[A-Za-z0-9][\w.-]*)?)(?:@([\w.\-/]+))?$/.exec(ref);
  if (!m) return undefined;
  const id = m[1];
  // The Hub forbids '--' and '..' in names; refusing them also keeps ids from escaping a cache directory.
  if (id.includes('--') || id.includes('..') || id.endsWith('.')) return undefined;
  const revision = m[2];
  if (revision !== undefined && revision.split('/').some((s) => s === '' || s === '.' || s === '..')) return undefined;
  return { id, revision };
}

export const cacheFolderName = (id: string): string => `models--${id.replace('/', '--')}`;

/**
 * The Hub id a Hugging Face cache folder is named after, where a path names one (`../models--Qwen--Qwen2.5-7B`, its
 * `snapshots/<commit>` folder or the config.json in it): huggingface_hub's repo_folder_name writes `models--` and the
 * id with `/` as `--`, which no Hub name holds. undefined for any other path.
 */
export function hubIdOfCacheFolder(ref: string): string | undefined {
  const m =
    /(?:^|[\\/])models--([\w.-]+?)--([\w.-]+?)(?:[\\/]snapshots[\\/][\w.-]+)?(?:[\\/]config\.json)?[\\/]?$/.exec(
      ref.trim(),
    );
  const hub = m ? parseHubRef(`${m[1]}/${m[2]}`) : undefined;
  return hub?.id;
}
