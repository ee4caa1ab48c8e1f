/**
 * The tracking plan compiled once into validators (ajv, with its formats), and the check of one
 * message against it: its violations as {path, rule, message, value}, paths as JSON pointers into
 * the message. Compiling refuses a schema ajv cannot compile, naming where it is in the plan.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Violation } from '../../../src-shared/assertions';
import type { InboundMessage } from '../../../src-shared/events';
import { ValidationError, type FieldError } from '../../../src-shared/settings';
import { PLANNED_CALLS, PLANNED_FIELD, type TrackingPlan } from '../../../src-shared/tracking-plan';

/** Violations kept per message: a schema that fails everywhere must not make a message huge. */
export const MAX_VIOLATIONS = 20;
const MAX_VALUE_CHARS = 200;

export interface CompiledPlan {
  readonly plan: TrackingPlan;
  /** Empty when the message passes, or when the plan says nothing about it. */
  check(message: InboundMessage): Violation[];
  /** Whether messages with violations are held back from delivery. */
  readonly hold: boolean;
}

/** A large value is kept as the start of its JSON text: enough to recognize it in a report. */
function clipValue(value: unknown): unknown {
  const text = JSON.stringify(value);
  if (text === undefined || text.length <= MAX_VALUE_CHARS) return value;
  return `${text.slice(0, MAX_VALUE_CHARS)}…`;
}

const pointerSegment = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

function valueAt(root: unknown, pointer: string): { found: boolean; value?: unknown } {
  let at: unknown = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof at !== 'object' || at === null || !(key in at)) return { found: false };
    at = (at as Record<string, unknown>)[key];
  }
  return { found: true, value: at };
}

/** Pure: ajv's errors as violations under `field` (properties or traits) of the message. */
export function violationsOf(errors: readonly ErrorObject[], field: string, checked: unknown): Violation[] {
  return errors.slice(0, MAX_VIOLATIONS).map((e) => {
    let pointer = e.instancePath;
    // These rules are about one named property: point at it rather than at its parent.
    if (e.keyword === 'required') pointer += `/${pointerSegment(String((e.params as { missingProperty: string }).missingProperty))}`;
    if (e.keyword === 'additionalProperties') pointer += `/${pointerSegment(String((e.params as { additionalProperty: string }).additionalProperty))}`;
    const at = valueAt(checked, pointer);
    const violation: Violation = { path: `/${field}${pointer}`, rule: e.keyword, message: e.message ?? e.keyword };
    if (at.found) violation.value = clipValue(at.value);
    return violation;
  });
}

export function compilePlan(plan: TrackingPlan): CompiledPlan {
  // strict: false takes schemas written for other validators (unknown keywords, "example") as they are.
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const problems: FieldError[] = [];
  const compile = (schema: Record<string, unknown>, field: string): ValidateFunction | null => {
    try {
      return ajv.compile(schema);
    } catch (err) {
      problems.push({ field, message: `is not a JSON Schema ajv can use: ${(err as Error).message}` });
      return null;
    }
  };
  const events = new Map<string, ValidateFunction>();
  for (const [name, schema] of Object.entries(plan.events)) {
    const validate = compile(schema, `events[${JSON.stringify(name)}]`);
    if (validate) events.set(name, validate);
  }
  const calls = new Map<string, ValidateFunction>();
  for (const call of PLANNED_CALLS) {
    const schema = plan[call];
    if (schema === undefined) continue;
    const validate = compile(schema, call);
    if (validate) calls.set(call, validate);
  }
  if (problems.length > 0) throw new ValidationError(problems);

  return {
    plan,
    hold: plan.violatingEvents === 'hold',
    check(message) {
      const type = message.type;
      let validate: ValidateFunction | undefined;
      if (type === 'track') {
        validate = events.get(message.event ?? '');
        if (!validate) {
          if (plan.unplannedEvents === 'violate') {
            return [{ path: '/event', rule: 'unplanned', message: 'is not an event of the tracking plan', value: message.event ?? null }];
          }
          return [];
        }
      } else {
        validate = calls.get(type);
        if (!validate) return [];
      }
      const field = PLANNED_FIELD[type as keyof typeof PLANNED_FIELD];
      // A call without the object is checked as an empty one: `required` still says what is missing.
      const checked = (message as unknown as Record<string, unknown>)[field] ?? {};
      if (validate(checked)) return [];
      return violationsOf(validate.errors ?? [], field, checked);
    },
  };
}
