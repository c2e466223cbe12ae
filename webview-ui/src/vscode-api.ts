// The webview's one handle on VS Code: acquireVsCodeApi() may be called only once per page. In a plain browser
// (webview-ui/dev/preview.html) a stub stands in: posted messages go to the console and to a
// 'vram-lens-dev:post' window event the preview page answers; state lives in localStorage.
import { FromWebview } from '../../src/protocol/messages';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState<T>(state: T): T;
}

declare function acquireVsCodeApi(): VsCodeApi;

const STATE_KEY = 'vram-lens-panel-state';

function browserStub(): VsCodeApi {
  return {
    postMessage(message: unknown) {
      console.info('[vram-lens] webview -> host', message);
      window.dispatchEvent(new CustomEvent('vram-lens-dev:post', { detail: message }));
    },
    getState() {
      try {
        const raw = window.localStorage.getItem(STATE_KEY);
        return raw ? JSON.parse(raw) : undefined;
      } catch {
        return undefined;
      }
    },
    setState<T>(state: T): T {
      try {
        window.localStorage.setItem(STATE_KEY, JSON.stringify(state));
      } catch {
        /* storage unavailable (file://, private mode): state is per page load then */
      }
      return state;
    },
  };
}

const api: VsCodeApi = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : browserStub();

/** Posts one message to the host; the type checks the outgoing message, the schema checks it again at runtime. */
export function post(msg: FromWebview): void {
  const ok = FromWebview.safeParse(msg);
  if (!ok.success) {
    console.error('[vram-lens] refusing to post an invalid message', ok.error.issues);
    return;
  }
  api.postMessage(ok.data);
}

export function getState(): unknown {
  return api.getState();
}

export function setState(state: unknown): void {
  api.setState(state);
}
