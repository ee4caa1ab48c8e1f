/**
 * The contract's profiles, audiences and computed traits calls over src-main/engine/personas.
 * Params arrive from a transport, so each is checked here whatever the static types say.
 */
import type { Engine } from '../index';
import { DEFAULT_PAGE_LIMIT, type EngineApi } from '../../../src-shared/api';
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

/** Pure: a checked profile page with its defaults; a blank text filter narrows nothing. */
function profilePageOf(page: Parameters<EngineApi['listProfiles']>[0]): { text: string | null; after: string; limit: number } {
  const text = page?.text?.trim() ?? '';
  return { text: text === '' ? null : text, after: page?.after ?? '', limit: page?.limit ?? DEFAULT_PAGE_LIMIT };
}

/** `{ condition }` or `{ rule }`, and optionally the `space` whose computed traits conditions see. */
function parsePreview(input: Record<string, unknown>, sources: readonly string[]): { definition: Definitions; space: string | null } {
  // params.ts checked that exactly one of condition and rule is given.
  const hasCondition = input.condition !== undefined;
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
  // Reads answer at once with what is built (and say so while a backlog is read); what sends
  // anything waits until the profiles are current, since it compares them with what was sent.
  const caughtUp = async (): Promise<void> => {
    await personas.current();
    await engine.owedTakenIn();
  };
  return {
    async listProfiles(page) {
      // Fifty profiles with their ids, traits and events take a few milliseconds to read at a
      // million messages: on the read worker, so the Audiences room polling them never holds ingest.
      // engine.reads settles the profiles first, on either side.
      const p = profilePageOf(page);
      const read = await engine.reads.run('profiles.page', p, async () => engine.stores.profiles.readPage(p));
      const progress = personas.catchingUp();
      return progress === undefined ? read : { ...read, catchingUp: progress };
    },
    async getProfile(profileId) {
      // What commits still owe the profiles is taken in by the follow-up first, not by this read at once.
      await engine.owedTakenIn();
      return personas.getProfile(profileId);
    },
    async listComputations() {
      return personas.listComputations();
    },
    async saveAudience(input) {
      await caughtUp();
      return personas.saveAudience(input);
    },
    async saveComputedTrait(input) {
      await caughtUp();
      return personas.saveComputedTrait(input);
    },
    async deleteComputation(id) {
      if (!personas.deleteComputation(id)) {
        throw new ValidationError([{ field: 'id', message: `no audience or computed trait with id ${String(id)}` }]);
      }
    },
    async previewComputation(input) {
      const { definition, space } = parsePreview(input as Record<string, unknown>, engine.stores.config.listSources().map((s) => s.name));
      await engine.owedTakenIn();
      return personas.preview(definition, space);
    },
    async syncComputation(id) {
      await caughtUp();
      return personas.sync(id);
    },
    async listSyncs(computationId) {
      const syncs = personas.listSyncs(computationId);
      if (syncs === null) throw new ValidationError([{ field: 'computationId', message: `no audience or computed trait with id ${String(computationId)}` }]);
      return syncs;
    },
  };
}
