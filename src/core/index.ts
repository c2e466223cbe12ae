// The core's only door: everything outside src/core (analyzers, features, the server, the CLI, the extension and the
// webview) imports the estimator, the advice, the catalogs and the setup schema from here. Pure: no I/O, no state.
// Docs: docs/contributing/architecture.md
export * from './setup';
export * from './model';
export * from './units';
export * from './lookup';
export * from './model-from-path';
export * from './estimate';
export * from './advice';
export * from './architecture';
export * from './catalog/gpus';
export * from './step-time';
export { olderThan } from './util/version';
