// The Hub, reached only when the user allowed network access.
import { downloadFile, HubApiError, parseSafetensorsMetadata } from '@huggingface/hub';
import { findModel } from '../../core';
import { assemble, CACHE_FORMAT, writeOurCache } from './cache';
import { findHfToken, type HubRef, vramLensCacheDir } from './paths';
import { countHeaders, isObj, type LocalCount } from './safetensors';
import type { AsyncResolveOptions, ModelResolution } from './types';

const DEFAULT_HUB_URL = 'https://huggingface.co';
const DEFAULT_TIMEOUT_MS = 10_000;
/** A config.json larger than this is not read (the largest in the catalog's sources are under 100 KB). */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** Hosts an answer may come from: the Hub asked (hubUrl or HF_ENDPOINT) and Hugging Face's own hosts (its CDN and storage). */
function hubHost(host: string, hubUrl: string): boolean {
  return (
    host === new URL(hubUrl).hostname ||
    host === 'huggingface.co' ||
    host.endsWith('.huggingface.co') ||
    host === 'hf.co' ||
    host.endsWith('.hf.co')
  );
}

export function suggestionText(ref: string): string {
  const hit = findModel(ref.replace(/@.*$/, ''));
  return !hit.ok && hit.suggestions.length > 0 ? `; closest catalog entries: ${hit.suggestions.join(', ')}` : '';
}

interface HubContext {
  readonly hub: HubRef;
  readonly hubUrl: string;
  readonly timeoutMs: number;
  readonly token?: { readonly token: string; readonly from: string };
  readonly signal: AbortSignal;
  /** X-Error-Code of the last failed response (GatedRepo, RepoNotFound, EntryNotFound...). */
  errorCode?: string;
}

function hubMessage(e: unknown, ctx: HubContext): string {
  const { hub, hubUrl } = ctx;
  const at = hub.revision ? `${hub.id}@${hub.revision}` : hub.id;
  if (ctx.signal.aborted) {
    return (
      `the Hugging Face Hub (${hubUrl}) did not answer within ${ctx.timeoutMs} ms for '${at}'; try again, raise the timeout, ` +
      `or download the config once (hf download ${hub.id} config.json) so the local cache answers`
    );
  }
  if (e instanceof HubApiError) {
    const notFound = `'${at}' was not found on the Hugging Face Hub (${hubUrl})${suggestionText(hub.id)}`;
    if (e.statusCode === 404 || ctx.errorCode === 'RepoNotFound' || ctx.errorCode === 'RevisionNotFound') {
      return ctx.errorCode === 'RevisionNotFound'
        ? `'${at}': the revision '${hub.revision ?? 'main'}' was not found on the Hugging Face Hub (${hubUrl})`
        : `${notFound}${ctx.token ? '' : '; if it is private, set HF_TOKEN'}`;
    }
    if (e.statusCode === 401 || e.statusCode === 403) {
      const why = ctx.token
        ? `the token from ${ctx.token.from} was refused or has no access yet`
        : 'no token was found in HF_TOKEN, HUGGING_FACE_HUB_TOKEN or the saved token file';
      return `'${hub.id}' is gated or private (HTTP ${e.statusCode}): accept the license at ${hubUrl}/${hub.id} and set HF_TOKEN (${why})`;
    }
    return `the Hugging Face Hub answered HTTP ${e.statusCode} for '${at}': ${e.message.split('\n')[0]}`;
  }
  const err = e as Error & { cause?: { code?: string; message?: string } };
  const cause = err.cause?.code ?? err.cause?.message ?? err.message;
  return `could not reach the Hugging Face Hub at ${hubUrl} for '${at}' (${cause})`;
}

export async function fetchFromHub(hub: HubRef, opts: AsyncResolveOptions): Promise<ModelResolution> {
  const hubUrl = (opts.hubUrl ?? opts.env.HF_ENDPOINT ?? DEFAULT_HUB_URL).replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const token = opts.token ? { token: opts.token, from: 'the token option' } : findHfToken(opts.env);
  if (token && !token.token.startsWith('hf_')) {
    return {
      ok: false,
      message: `the token from ${token.from} is not a Hugging Face access token (those start with hf_)`,
    };
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const ctx: HubContext = { hub, hubUrl, timeoutMs, token, signal: controller.signal };
  const base = opts.fetch ?? globalThis.fetch;
  // Every answer is checked: one redirected off Hugging Face's hosts, or a config.json over MAX_CONFIG_BYTES, is refused
  // before its body is read.
  const timedFetch: typeof fetch = async (input, init) => {
    const res = await base(input, { ...init, signal: controller.signal });
    const host = res.url ? new URL(res.url).hostname : undefined;
    if (host !== undefined && !hubHost(host, hubUrl)) {
      void res.body?.cancel().catch(() => undefined);
      throw new Error(`the Hub's answer came from ${host}, which is not a Hugging Face host; nothing was read from it`);
    }
    const asked = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const size = Number(res.headers.get('content-length') ?? '0');
    if (/\/config\.json(\?|$)/.test(asked) && size > MAX_CONFIG_BYTES) {
      void res.body?.cancel().catch(() => undefined);
      throw new Error(`config.json is ${size} bytes, over the ${MAX_CONFIG_BYTES}-byte limit; not read`);
    }
    if (!res.ok) ctx.errorCode = res.headers.get('x-error-code') ?? undefined;
    return res;
  };
  const revision = hub.revision ?? 'main';
  const common = { repo: hub.id, revision, hubUrl, fetch: timedFetch, accessToken: token?.token };
  try {
    const blob = await downloadFile({ ...common, path: 'config.json' });
    if (!blob)
      return {
        ok: false,
        message: `'${hub.id}' on the Hugging Face Hub (${hubUrl}) has no config.json at revision ${revision}`,
      };
    let config: unknown;
    try {
      config = JSON.parse(await blob.text());
    } catch {
      return { ok: false, message: `${hubUrl}/${hub.id}/resolve/${revision}/config.json: invalid JSON` };
    }
    if (!isObj(config))
      return { ok: false, message: `${hubUrl}/${hub.id}/resolve/${revision}/config.json: not a config.json object` };

    let counted: LocalCount = { notes: [] };
    try {
      const meta = await parseSafetensorsMetadata({ ...common, computeParametersCount: false });
      const headers = meta.sharded ? Object.values(meta.headers) : [meta.header];
      counted = {
        count: countHeaders(headers, config),
        parameterSource:
          `safetensors header${meta.filepaths.length > 1 ? 's' : ''} of ${meta.filepaths.join(', ')} ` +
          `at ${hubUrl}/${hub.id} (revision ${revision}), read by ranged requests`,
        notes: [],
      };
    } catch (e) {
      const reason = controller.signal.aborted
        ? `the Hub did not answer within ${timeoutMs} ms`
        : (e as Error).message.split('\n')[0];
      counted = {
        notes: [`no exact parameter count from safetensors headers (${reason}); parameters come from the architecture`],
      };
    }
    const fetchedAt = new Date().toISOString();
    const cacheDir = opts.cacheDir ?? vramLensCacheDir(opts.env);
    const c = counted.count && counted.count.parameters > 0 ? counted.count : undefined;
    const cacheNote = writeOurCache(cacheDir, hub, {
      format: CACHE_FORMAT,
      id: hub.id,
      revision,
      hubUrl,
      fetchedAt,
      config,
      ...(c ? { parameters: c.parameters, parameterSource: counted.parameterSource, dtypes: c.dtypes } : {}),
    });
    const model = assemble(
      hub.id,
      config,
      `Hugging Face Hub ${hubUrl}/${hub.id}/resolve/${revision}/config.json`,
      counted,
      revision,
    );
    return { ok: true, model: cacheNote ? { ...model, notes: [...model.notes, cacheNote] } : model };
  } catch (e) {
    return { ok: false, message: hubMessage(e, ctx) };
  } finally {
    clearTimeout(timer);
  }
}
