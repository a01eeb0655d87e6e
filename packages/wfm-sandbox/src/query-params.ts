// Query parameters of the Spring-style endpoints (categories, divisions): strict booleans and
// integers, lists as comma-separated values or repeated parameters, a repeated scalar takes its
// first value, unknown parameters are ignored. Invalid values throw HttpError 400.

import { HttpError } from './http-error.js';

export function searchParamsOf(url: string): URLSearchParams {
  const q = url.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
}

export function booleanParam(params: URLSearchParams, name: string): boolean | undefined {
  const value = params.get(name);
  if (value === null) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new HttpError(400, `query parameter ${name} must be true or false, got "${value}"`);
}

export function integerParam(params: URLSearchParams, name: string): number | undefined {
  const value = params.get(name);
  return value === null ? undefined : toInteger(name, value);
}

export function stringParam(params: URLSearchParams, name: string): string | undefined {
  return params.get(name) ?? undefined;
}

/** All values of a list parameter (`ids=1,2&ids=3` → ['1', '2', '3']); undefined when absent. */
export function listParam(params: URLSearchParams, name: string): string[] | undefined {
  const values = params.getAll(name);
  if (values.length === 0) return undefined;
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export function integerListParam(params: URLSearchParams, name: string): number[] | undefined {
  return listParam(params, name)?.map((v) => toInteger(name, v));
}

export function toInteger(name: string, value: string): number {
  if (!/^-?\d{1,15}$/.test(value)) throw new HttpError(400, `${name} must be an integer, got "${value}"`);
  return Number(value);
}
