import { isObject } from '../shared/values.ts';
import type { Exchange } from './exchange.ts';

/**
 * Reading an answer of the order service's envelope ({success, data} or {success: false, error: {code, message,
 * details?}}): the generic helpers every orders check and step uses.
 */

export function errorCode(ex: Exchange): unknown {
  const b = ex.response.body;
  return isObject(b) && isObject(b.error) ? b.error.code : undefined;
}

export function dataOf(ex: Exchange): Record<string, unknown> | undefined {
  const b = ex.response.body;
  return isObject(b) && isObject(b.data) ? b.data : undefined;
}

/** error.details of a failure, when an object. */
export function detailsOf(ex: Exchange): Record<string, unknown> | undefined {
  const b = ex.response.body;
  return isObject(b) && isObject(b.error) && isObject(b.error.details) ? b.error.details : undefined;
}

export const is2xx = (ex: Exchange) => ex.response.status >= 200 && ex.response.status < 300;
export const is4xx = (ex: Exchange) => ex.response.status >= 400 && ex.response.status < 500;

/** What a failure message shows of an answer: its status, its error code and its body. */
export const failureOf = (ex: Exchange) => ({ status: ex.response.status, code: errorCode(ex) ?? '(none)', body: ex.response.body });
