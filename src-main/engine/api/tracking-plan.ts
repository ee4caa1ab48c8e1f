/** The tracking plan as the Configure view edits it, with the log's violation counts per event. */
import type { EngineApi, TrackingPlanView } from '../../../src-shared/api';
import { normalizePlan } from '../../../src-shared/tracking-plan';
import { ValidationError } from '../../../src-shared/settings';
import type { Engine } from '../index';
import type { ConfigWhat } from './index';

export function createTrackingPlanApi(engine: Engine, deps: { onConfig: (what: ConfigWhat) => void }): Pick<EngineApi, 'getTrackingPlan' | 'saveTrackingPlan'> {
  const view = (): TrackingPlanView => ({ plan: engine.trackingPlan(), counts: engine.stores.assertions.violationCounts(0) });
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
