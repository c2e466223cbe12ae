// Scenario files (*.vram.yaml, *.vram.json): a change is written under its own key. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Val, type Planned, op, ok } from '../ops';

export function planScenario(ch: SetupChange): Planned {
  return ok(op([ch.key], ch.value as Val));
}
