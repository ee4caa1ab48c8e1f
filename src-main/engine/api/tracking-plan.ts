/** The tracking plan as the Configure view edits it, with the log's violation counts per event. */
import type { EngineApi, TrackingPlanView } from '../../../src-shared/api';
import { normalizePlan } from '../../../src-shared/tracking-plan';
import { ValidationError } from '../../../src-shared/settings';
import type { Engine } from '../index';
import type { ConfigWhat } from './index';
import { createAssertions } from '../assertions/service';
import { toIso } from '../ingest/timestamps';

/**
 * How long the view's violation counts may spend reading the log (newest first, in windows that
 * yield): one scan of a log of millions held the engine for half a minute.
 */
export const VIOLATION_COUNT_BUDGET_MS = 200;

export function createTrackingPlanApi(engine: Engine, deps: { onConfig: (what: ConfigWhat) => void }): Pick<EngineApi, 'getTrackingPlan' | 'saveTrackingPlan'> {
  const assertions = createAssertions(engine);
  const view = async (): Promise<TrackingPlanView> => {
    const { counts, from } = await assertions.violationCountsWithin(VIOLATION_COUNT_BUDGET_MS);
    return { plan: engine.trackingPlan(), counts, ...(from === null ? {} : { countedFrom: toIso(from) }) };
  };
  return {
    async getTrackingPlan() {
      return view();
    },
    async saveTrackingPlan(input) {
      try {
        engine.setTrackingPlan(input === null ? null : normalizePlan(input));
      } catch (err) {
        // The validator's refusals name a place in the plan; the form shows them under its root.
        if (err instanceof ValidationError) throw new ValidationError(err.errors.map((e) => ({ ...e, field: `trackingPlan.${e.field}` })));
        throw err;
      }
      deps.onConfig('trackingPlan');
      return view();
    },
  };
}
