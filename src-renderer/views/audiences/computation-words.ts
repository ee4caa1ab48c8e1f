/** The Audiences view's definitions, syncs and profile values in plain words (pure). */
import type { JsonValue } from '../../../src-shared/json';
import type { Computation, ComputedTraitRule, Condition, SyncSummary } from '../../../src-shared/personas';
import { untilOf } from '../../shared/format';
import { OPERATOR_WORDS, VALUELESS } from './form';

const times = (n: number): string => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);
const days = (n: number): string => (n === 1 ? 'in the last day' : `in the last ${n} days`);

/** A preview's count: "1,000+" when it stopped at its limit, the exact number otherwise. */
export function previewCountInWords(p: { total: number; capped?: boolean }): string {
  return p.capped === true ? `${p.total.toLocaleString('en-US')}+` : String(p.total);
}

export function valueInWords(value: JsonValue | undefined): string {
  return value === undefined ? '' : JSON.stringify(value);
}

/** "performed Order Completed at least twice in the last 30 days and plan equals "pro"". */
export function conditionInWords(c: Condition, nested = false): string {
  switch (c.kind) {
    case 'event': {
      const least = c.atLeast ?? 1;
      const count =
        c.atMost !== undefined
          ? c.atMost === least
            ? `exactly ${times(least)}`
            : `between ${least} and ${c.atMost} times`
          : least <= 1
            ? ''
            : `at least ${times(least)}`;
      const parts = [`performed ${c.event}`, count, c.withinDays !== undefined ? days(c.withinDays) : ''];
      for (const w of c.where ?? []) parts.push(`where ${w.property} = ${valueInWords(w.equals)}`);
      return parts.filter(Boolean).join(' ');
    }
    case 'trait':
      return VALUELESS.includes(c.op) ? `${c.trait} ${OPERATOR_WORDS[c.op]}` : `${c.trait} ${OPERATOR_WORDS[c.op]} ${valueInWords(c.value)}`;
    case 'and':
    case 'or': {
      const list = c.kind === 'and' ? c.all : c.any;
      const text = list.map((p) => conditionInWords(p, true)).join(` ${c.kind} `);
      return nested && list.length > 1 ? `(${text})` : text;
    }
  }
}

export function ruleInWords(rule: ComputedTraitRule): string {
  if (rule.kind === 'event_count') return `times ${rule.event} was performed${rule.withinDays !== undefined ? ` ${days(rule.withinDays)}` : ''}`;
  return `last ${rule.property} of ${rule.event}`;
}

export function definitionInWords(c: Computation): string {
  if (c.condition) return conditionInWords(c.condition);
  if (c.rule) return ruleInWords(c.rule);
  return '';
}

export function intervalInWords(minutes: number | null): string {
  if (minutes === null) return 'on demand only';
  if (minutes % 1440 === 0) return minutes === 1440 ? 'every day' : `every ${minutes / 1440} days`;
  if (minutes % 60 === 0) return minutes === 60 ? 'every hour' : `every ${minutes / 60} hours`;
  return minutes === 1 ? 'every minute' : `every ${minutes} minutes`;
}

export const CLASS_WORDS: Record<Computation['class'], string> = { audience: 'Audience', trait: 'Computed trait' };

export function sizeInWords(c: Pick<Computation, 'class' | 'size'>): string {
  if (c.class === 'audience') return c.size === 1 ? '1 member' : `${c.size} members`;
  return c.size === 1 ? '1 profile' : `${c.size} profiles`;
}

export function syncKindInWords(kind: SyncSummary['kind']): string {
  return kind === 'initial' ? 'initial: every member sent' : 'incremental: only changes sent';
}

/** "+2 −1" for audiences, "+2 −1 ~3" when values changed too. */
export function changesInWords(s: Pick<SyncSummary, 'entered' | 'exited' | 'changed'>): string {
  const parts = [`+${s.entered}`, `−${s.exited}`];
  if (s.changed > 0) parts.push(`~${s.changed}`);
  return parts.join(' ');
}

/** The next sync: "in 4 min", "due now", or never by itself. */
export function untilInWords(iso: string | null, now: number): string {
  return iso === null ? 'on demand only' : untilOf(iso, now);
}
