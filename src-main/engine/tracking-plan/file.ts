/** Reads a tracking plan file: JSON, checked field by field (its schemas are compiled when applied). */
import { readFileSync } from 'node:fs';
import { MAX_PLAN_BYTES, normalizePlan, trackingPlanSchema, type TrackingPlan } from '../../../src-shared/tracking-plan';
import { parseOrThrow, ValidationError } from '../../../src-shared/settings';

/** The plan, or an Error whose message names the file and each problem by its field. */
export function readTrackingPlanFile(path: string): TrackingPlan {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read tracking plan ${path}: ${(err as Error).message}`);
  }
  if (Buffer.byteLength(text) > MAX_PLAN_BYTES) throw new Error(`tracking plan ${path} is larger than ${MAX_PLAN_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`tracking plan ${path} is not valid JSON: ${(err as Error).message}`);
  }
  try {
    return normalizePlan(parseOrThrow(trackingPlanSchema, json, '', '(tracking plan)'));
  } catch (err) {
    if (err instanceof ValidationError) {
      throw new Error(`tracking plan ${path} has problems:\n${err.errors.map((e) => `  ${e.field}: ${e.message}`).join('\n')}`);
    }
    throw err;
  }
}
