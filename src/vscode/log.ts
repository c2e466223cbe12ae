// The "VRAM Lens" output channel (a log channel: the server's connection.console lines land here through the language
// client, with the client's own lines). The channel is wrapped so that the last lines written are kept in memory for
// the end-to-end tests (command vramLens.internal.recentLog); nothing leaves the process.
import * as vscode from 'vscode';

const WRITERS = new Set<PropertyKey>(['trace', 'debug', 'info', 'warn', 'error', 'append', 'appendLine', 'replace']);
const KEPT = 200;
const recent: string[] = [];

export function createLog(): vscode.LogOutputChannel {
  const channel = vscode.window.createOutputChannel('VRAM Lens', { log: true });
  return new Proxy(channel, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (!WRITERS.has(prop)) return (value as (...a: unknown[]) => unknown).bind(target);
      return (...args: unknown[]) => {
        recent.push(String(args[0] instanceof Error ? args[0].message : args[0]));
        if (recent.length > KEPT) recent.shift();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** The last lines written to the channel (the end-to-end tests check that opening a config logs its analysis). */
export function recentLog(): string[] {
  return [...recent];
}
