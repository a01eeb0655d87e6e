// PostgREST's horizontal-filter syntax, parsed into a small tree: `col=[not.]op.value` query
// parameters (eq, neq, gt, gte, lt, lte, like, ilike, in.(…), is.null|true|false|unknown) and the
// logic trees `and=(…)`, `or=(…)`, `not.and=(…)`, `not.or=(…)` with nesting, where values holding
// `,` `.` `(` `)` are double-quoted (`\"` and `\\` escape inside quotes). Types are checked later,
// against the columns (see shift-filter.ts).

export const COMPARE_OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike'] as const;
export type CompareOperator = (typeof COMPARE_OPERATORS)[number];

export type FilterNode =
  | {
      readonly kind: 'compare';
      readonly column: string;
      readonly operator: CompareOperator;
      readonly value: string;
      readonly negated: boolean;
    }
  | {
      readonly kind: 'in';
      readonly column: string;
      readonly values: readonly string[];
      readonly negated: boolean;
    }
  | {
      readonly kind: 'is';
      readonly column: string;
      readonly value: null | boolean;
      readonly negated: boolean;
    }
  | { readonly kind: 'and' | 'or'; readonly children: readonly FilterNode[]; readonly negated: boolean };

/** A filter that PostgREST would refuse with 400 (message in PostgREST's words where it has them). */
export class FilterSyntaxError extends Error {
  override readonly name = 'FilterSyntaxError';
}

export const LOGIC_KEYS = ['and', 'or', 'not.and', 'not.or'] as const;
export type LogicKey = (typeof LOGIC_KEYS)[number];

export function isLogicKey(key: string): key is LogicKey {
  return (LOGIC_KEYS as readonly string[]).includes(key);
}

/** One `column=expression` query parameter, e.g. ('start_time', 'gte.2024-05-01T00:00:00'). */
export function parseColumnFilter(column: string, expression: string): FilterNode {
  return parseOperation(column, expression, false);
}

/** One logic query parameter, e.g. ('and', '(id.gt.5,or(comment.is.null,duration.lt.60))'). */
export function parseLogicFilter(key: LogicKey, value: string): FilterNode {
  const negated = key.startsWith('not.');
  return parseLogicGroup(negated ? (key.slice(4) as 'and' | 'or') : (key as 'and' | 'or'), value, negated);
}

function parseLogicGroup(kind: 'and' | 'or', text: string, negated: boolean): FilterNode {
  if (!text.startsWith('(') || !text.endsWith(')')) {
    throw new FilterSyntaxError(`"failed to parse logic tree (${text})": expected a parenthesised list`);
  }
  const items = splitTopLevel(text.slice(1, -1));
  if (items.length === 0 || items.some((item) => item === '')) {
    throw new FilterSyntaxError(`"failed to parse logic tree (${text})": empty condition`);
  }
  return { kind, children: items.map(parseLogicItem), negated };
}

function parseLogicItem(item: string): FilterNode {
  const logic = /^(not\.)?(and|or)(\(.*\))$/s.exec(item);
  if (logic) return parseLogicGroup(logic[2] as 'and' | 'or', logic[3] ?? '', logic[1] !== undefined);
  const dot = item.indexOf('.');
  if (dot <= 0)
    throw new FilterSyntaxError(`"failed to parse logic tree": "${item}" is not column.operator.value`);
  return parseOperation(item.slice(0, dot), item.slice(dot + 1), true);
}

function parseOperation(column: string, expression: string, inTree: boolean): FilterNode {
  let rest = expression;
  let negated = false;
  if (rest.startsWith('not.')) {
    negated = true;
    rest = rest.slice(4);
  }
  const dot = rest.indexOf('.');
  const operator = dot < 0 ? rest : rest.slice(0, dot);
  const operand = dot < 0 ? undefined : rest.slice(dot + 1);
  if (operand === undefined) {
    throw new FilterSyntaxError(
      `"failed to parse filter (${expression})": expected operator.value for column ${column}`,
    );
  }
  if (operator === 'in') {
    if (!operand.startsWith('(') || !operand.endsWith(')')) {
      throw new FilterSyntaxError(
        `"failed to parse filter (${expression})": in expects a list in parentheses`,
      );
    }
    const inner = operand.slice(1, -1);
    return { kind: 'in', column, values: inner === '' ? [] : splitTopLevel(inner).map(unquote), negated };
  }
  if (operator === 'is') {
    const word = operand.toLowerCase();
    if (word === 'null' || word === 'unknown') return { kind: 'is', column, value: null, negated };
    if (word === 'true' || word === 'false') return { kind: 'is', column, value: word === 'true', negated };
    throw new FilterSyntaxError(
      `"failed to parse filter (${expression})": is accepts null, true, false or unknown`,
    );
  }
  if ((COMPARE_OPERATORS as readonly string[]).includes(operator)) {
    return {
      kind: 'compare',
      column,
      operator: operator as CompareOperator,
      value: inTree ? unquote(operand) : operand,
      negated,
    };
  }
  throw new FilterSyntaxError(`"failed to parse filter (${expression})": unknown operator "${operator}"`);
}

/** Splits on commas outside parentheses and double quotes. */
export function splitTopLevel(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '\\') i++;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === '(') depth++;
    else if (ch === ')') {
      depth--;
      if (depth < 0) throw new FilterSyntaxError(`"failed to parse (${text})": unbalanced parentheses`);
    } else if (ch === ',' && depth === 0) {
      items.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (quoted || depth !== 0)
    throw new FilterSyntaxError(`"failed to parse (${text})": unbalanced quotes or parentheses`);
  items.push(text.slice(start));
  return items;
}

/** `"a\"b"` → `a"b`; text without surrounding quotes is returned as is. */
export function unquote(text: string): string {
  if (text.length < 2 || !text.startsWith('"') || !text.endsWith('"')) return text;
  return text.slice(1, -1).replace(/\\(.)/gs, '$1');
}
