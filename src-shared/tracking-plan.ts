/**
 * A tracking plan: a JSON Schema per event name for a track call's properties, and per call type
 * for identify and group traits and page and screen properties. Every accepted message is checked
 * against it at ingest; what fails is kept with the message as violations.
 */
import { z } from 'zod';

export const PLANNED_CALLS = ['identify', 'page', 'screen', 'group'] as const;
export type PlannedCall = (typeof PLANNED_CALLS)[number];

/** A JSON Schema, as a JSON object; whether it compiles is for the validator to say. */
export type JsonSchemaObject = Record<string, unknown>;

export interface TrackingPlan {
  /** Track calls by event name: a schema for their properties. */
  events: Record<string, JsonSchemaObject>;
  identify?: JsonSchemaObject;
  page?: JsonSchemaObject;
  screen?: JsonSchemaObject;
  group?: JsonSchemaObject;
  /** A track call whose event the plan does not name: allowed (default), or a violation. */
  unplannedEvents: 'allow' | 'violate';
  /** Messages with violations: delivered like any other (default), or kept in the log and held back. */
  violatingEvents: 'deliver' | 'hold';
}

export const EMPTY_TRACKING_PLAN: TrackingPlan = { events: {}, unplannedEvents: 'allow', violatingEvents: 'deliver' };

/** Which part of a message a plan checks, per call type. */
export const PLANNED_FIELD: Record<'track' | PlannedCall, 'properties' | 'traits'> = {
  track: 'properties',
  identify: 'traits',
  page: 'properties',
  screen: 'properties',
  group: 'traits',
};

export const MAX_PLAN_EVENTS = 2000;
export const MAX_PLAN_BYTES = 1024 * 1024;

const schemaObject = z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema (a JSON object)' });

export const trackingPlanSchema = z.strictObject(
  {
    $schema: z.string({ error: 'must be a string' }).optional(),
    events: z
      .record(z.string().min(1, { error: 'an event name must not be empty' }).max(200, { error: 'an event name is at most 200 characters' }), schemaObject, {
        error: 'must be an object of event name → JSON Schema for its properties',
      })
      .refine((e) => Object.keys(e).length <= MAX_PLAN_EVENTS, { error: `must name at most ${MAX_PLAN_EVENTS} events` })
      .optional(),
    identify: schemaObject.optional(),
    page: schemaObject.optional(),
    screen: schemaObject.optional(),
    group: schemaObject.optional(),
    unplannedEvents: z.enum(['allow', 'violate'], { error: 'must be allow or violate' }).optional(),
    violatingEvents: z.enum(['deliver', 'hold'], { error: 'must be deliver or hold' }).optional(),
  },
  {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? 'is not a tracking plan field (expected events, identify, page, screen, group, unplannedEvents, violatingEvents)'
        : 'must be a JSON object { events, identify?, page?, screen?, group?, unplannedEvents?, violatingEvents? }',
  },
);

export type TrackingPlanInput = z.input<typeof trackingPlanSchema>;

export function normalizePlan(input: z.output<typeof trackingPlanSchema>): TrackingPlan {
  const plan: TrackingPlan = {
    events: input.events ?? {},
    unplannedEvents: input.unplannedEvents ?? 'allow',
    violatingEvents: input.violatingEvents ?? 'deliver',
  };
  for (const call of PLANNED_CALLS) {
    const schema = input[call];
    if (schema !== undefined) plan[call] = schema;
  }
  return plan;
}
