// A file's facts read from a text built out of it (a notebook's cells as one script, a Python script's commands as a
// shell script), moved back to where the file writes them: every span through `at`. Pure.
import type { ConfigFacts, Span } from './facts';

export function movedSpans(r: ConfigFacts, at: (s: Span) => Span): ConfigFacts {
  return {
    ...r,
    facts: r.facts.map((f) => ({
      ...f,
      keySpan: at(f.keySpan),
      valueSpan: at(f.valueSpan),
      ...(f.originSpan ? { originSpan: at(f.originSpan) } : {}),
    })),
    problems: r.problems.map((p) => ({ ...p, span: at(p.span) })),
    references: r.references.map((x) => ({ ...x, span: at(x.span) })),
    ...(r.modelBeforeArguments ? { modelBeforeArguments: at(r.modelBeforeArguments) } : {}),
    ...(r.loopModelOutsideZeroInit ? { loopModelOutsideZeroInit: at(r.loopModelOutsideZeroInit) } : {}),
  };
}
