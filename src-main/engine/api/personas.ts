/**
 * The contract's profiles, audiences and computed traits calls over src-main/engine/personas.
 * Params arrive from a transport, so each is checked here whatever the static types say.
 */
import type { Engine } from '../index';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, type EngineApi } from '../../../src-shared/api';
import { isJsonObject } from '../../../src-shared/json';
import { ValidationError, type FieldError } from '../../../src-shared/settings';
import type { Definitions } from '../personas/service';
import { parseCondition, parseRule } from '../personas/validate';

type PersonasCalls =
  | 'listProfiles'
  | 'getProfile'
  | 'listComputations'
  | 'saveAudience'
  | 'saveComputedTrait'
  | 'deleteComputation'
  | 'previewComputation'
  | 'syncComputation'
  | 'listSyncs';

/** Profile ids, linked ids and the text filter: longer than any id the ingest takes is a mistake. */
const MAX_ID_LENGTH = 1000;

function requireId(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new ValidationError([{ field, message: 'must be a positive whole number' }]);
  }
  return value;
}

function parseProfilePage(input: unknown): { text: string | null; after: string; limit: number } {
  if (input === undefined || input === null) return { text: null, after: '', limit: DEFAULT_PAGE_LIMIT };
  if (!isJsonObject(input)) throw new ValidationError([{ field: 'page', message: 'must be an object { text?, limit?, after? }' }]);
  const errors: FieldError[] = [];
  const { text, limit, after } = input;
  if (text !== undefined && (typeof text !== 'string' || text.length > MAX_ID_LENGTH)) {
    errors.push({ field: 'page.text', message: `must be text of at most ${MAX_ID_LENGTH} characters` });
  }
  if (limit !== undefined && !(typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= MAX_PAGE_LIMIT)) {
    errors.push({ field: 'page.limit', message: `must be a whole number from 1 to ${MAX_PAGE_LIMIT}` });
  }
  if (after !== undefined && after !== null && (typeof after !== 'string' || after.length > MAX_ID_LENGTH)) {
    errors.push({ field: 'page.after', message: 'must be the profile id the previous page ended with (its next)' });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return {
    text: typeof text === 'string' && text.trim() !== '' ? text.trim() : null,
    after: typeof after === 'string' ? after : '',
    limit: typeof limit === 'number' ? limit : DEFAULT_PAGE_LIMIT,
  };
}

/** `{ condition }` or `{ rule }`, and optionally the `space` whose computed traits conditions see. */
function parsePreview(input: unknown, sources: readonly string[]): { definition: Definitions; space: string | null } {
  if (!isJsonObject(input)) throw new ValidationError([{ field: 'input', message: 'must be an object { condition } or { rule }' }]);
  const hasCondition = input.condition !== undefined;
  const hasRule = input.rule !== undefined;
  if (hasCondition === hasRule) {
    throw new ValidationError([{ field: 'input', message: 'must have exactly one of condition (an audience) or rule (a computed trait)' }]);
  }
  const errors: FieldError[] = [];
  let space: string | null = null;
  if (input.space !== undefined && input.space !== null && input.space !== '') {
    if (typeof input.space !== 'string' || !sources.includes(input.space)) errors.push({ field: 'input.space', message: `no source named "${String(input.space)}"` });
    else space = input.space;
  }
  let definition: Definitions | null = null;
  if (hasCondition) {
    const c = parseCondition(input.condition, 'input.condition');
    if (c.ok) definition = { condition: c.value };
    else errors.push(...c.errors);
  } else {
    const r = parseRule(input.rule, 'input.rule');
    if (r.ok) definition = { rule: r.value };
    else errors.push(...r.errors);
  }
  if (errors.length > 0 || definition === null) throw new ValidationError(errors);
  return { definition, space };
}

export function createPersonasApi(engine: Engine): Pick<EngineApi, PersonasCalls> {
  const personas = engine.personas;
  return {
    async listProfiles(page) {
      return personas.listProfiles(parseProfilePage(page));
    },
    async getProfile(profileId) {
      if (typeof profileId !== 'string' || profileId === '' || profileId.length > MAX_ID_LENGTH) {
        throw new ValidationError([{ field: 'profileId', message: 'must be a profile id (a userId or an anonymousId)' }]);
      }
      return personas.getProfile(profileId);
    },
    async listComputations() {
      return personas.listComputations();
    },
    async saveAudience(input) {
      return personas.saveAudience(input);
    },
    async saveComputedTrait(input) {
      return personas.saveComputedTrait(input);
    },
    async deleteComputation(id) {
      if (!personas.deleteComputation(requireId(id, 'id'))) {
        throw new ValidationError([{ field: 'id', message: `no audience or computed trait with id ${String(id)}` }]);
      }
    },
    async previewComputation(input) {
      const { definition, space } = parsePreview(input, engine.stores.config.listSources().map((s) => s.name));
      return personas.preview(definition, space);
    },
    async syncComputation(id) {
      return personas.sync(requireId(id, 'id'));
    },
    async listSyncs(computationId) {
      const syncs = personas.listSyncs(requireId(computationId, 'computationId'));
      if (syncs === null) throw new ValidationError([{ field: 'computationId', message: `no audience or computed trait with id ${String(computationId)}` }]);
      return syncs;
    },
  };
}
