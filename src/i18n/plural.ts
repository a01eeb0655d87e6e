// Owns plural messages: a text whose words follow a count ("1 смена", "2 смены", "5 смен",
// "1,5 часа"). The forms are CLDR's categories, chosen by Intl.PluralRules of the catalog's
// language; a test holds every plural message of every catalog to that language's categories, so
// a Russian message without `few` fails there, not in a manager's mail.

/** The forms of a plural message, by CLDR category; `{n}` stands for the formatted number. */
export type PluralForms = Readonly<Partial<Record<Intl.LDMLPluralRule, string>>> & { readonly other: string };

/** A message that depends on a count. The `plural` key tells it apart in a catalog (and its test). */
export interface PluralMessage {
  readonly plural: PluralForms;
}

export function plural(forms: PluralForms): PluralMessage {
  return { plural: forms };
}

export function isPluralMessage(value: unknown): value is PluralMessage {
  return typeof value === 'object' && value !== null && 'plural' in value;
}
