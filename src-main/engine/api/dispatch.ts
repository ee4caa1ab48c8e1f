/**
 * The one call dispatch behind every transport: Electron's IPC (electron/ipc-guard.ts) and the
 * headless HTTP control API (serve/control-api.ts) both hand a raw `{ method, params }` here and
 * carry back the answer. Nothing is thrown: every outcome is an ApiResponse, with the HTTP status
 * that fits it (IPC has no status and ignores it).
 */
import { z } from 'zod';
import { API_METHODS, type ApiMethod, type ApiResponse, type EngineApi } from '../../../src-shared/api';
import { ValidationError } from '../../../src-shared/settings';
import { StorageFaultError } from '../store/storage-fault';
import { parseParams } from './params';

export interface CallOutcome {
  /** 200, or the 4xx/5xx an HTTP transport answers with. */
  status: number;
  response: ApiResponse;
}

const requestSchema = z.object({ method: z.string(), params: z.unknown().optional() });
const methodSchema = z.enum(API_METHODS);

const failure = (status: number, code: string, message: string): CallOutcome => ({ status, response: { ok: false, error: { code, message } } });

/**
 * Runs one call against the API: the request and its method name checked here, its params by the
 * API itself (createEngineApi checks every method's params with the schemas of params.ts, so an
 * in-process call is refused exactly as a transported one).
 */
export async function dispatchCall(api: EngineApi, request: unknown): Promise<CallOutcome> {
  const call = requestSchema.safeParse(request);
  if (!call.success) return failure(400, 'bad_request', 'send { "method": NAME, "params": … }');
  const method = methodSchema.safeParse(call.data.method);
  if (!method.success) {
    return failure(404, 'unknown_method', `"${call.data.method}" is not a Hookbench API method; known: ${API_METHODS.join(', ')}`);
  }
  try {
    const invoke = api[method.data] as (params: unknown) => Promise<unknown>;
    return { status: 200, response: { ok: true, result: await invoke.call(api, call.data.params) } };
  } catch (err) {
    if (err instanceof ValidationError) return { status: 400, response: { ok: false, error: { code: err.code, message: err.message, fields: err.errors } } };
    if (err instanceof StorageFaultError) return failure(503, err.fault.code, err.message);
    return failure(500, 'internal', err instanceof Error ? err.message : String(err));
  }
}

/** The API with every method's params checked by its schema before the implementation runs. */
export function checkingParams(api: EngineApi): EngineApi {
  const checked = { ...api };
  for (const method of API_METHODS) {
    const call = api[method] as (params: unknown) => Promise<unknown>;
    (checked as Record<ApiMethod, unknown>)[method] = async (params: unknown): Promise<unknown> => call.call(api, parseParams(method, params));
  }
  return checked;
}
