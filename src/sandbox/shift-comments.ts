// The comments users leave on shifts: ordinary notes in several scripts, and the text that breaks
// naive exporters — commas, quotes, newlines, tabs, backslashes, emoji, leading = + - @ (formula
// injection), HTML, and a long one. Each is stored with its JSON text precomputed.

export const SHIFT_COMMENTS: readonly string[] = [
  'Всё в порядке',
  'Приёмка товара, задержалась на 20 минут',
  'Касса №3 не работала, работала на №5',
  'Подменяла коллегу, она на больничном',
  'Covered for Sam, swapped shifts with manager approval',
  'Inventory count, aisle 7',
  'Late delivery, truck arrived at 21:40',
  'Ok',
  'ok',
  '+',
  '-',
  '.',
  'Prices, labels, and the promo stand: done',
  'Said "see you tomorrow" and left',
  'He said: "it\'s fine, I\'ll sign later"',
  'Line one\nLine two',
  'Первая строка\r\nВторая строка\r\nТретья строка',
  'tab\tseparated\tnote',
  'Back\\slash and C:\\path\\file.txt',
  'Great day 🎉🙂',
  'Смена прошла отлично 👍 спасибо команде!',
  '🏪🛒💳',
  '=SUM(A1:A9)',
  '=HYPERLINK("http://example.invalid","click")',
  "+7 (999) 123-45-67 — call me if I'm late",
  '-2 hours, left early (doctor)',
  '@channel please check the fridge temperature',
  '=1+1',
  '+SUM(1,2)',
  '-1+1',
  '@SUM(1,2)',
  '\t=tab then formula',
  ' leading space, trailing space ',
  '<script>alert("x")</script>',
  'Семья; дети; «кавычки-ёлочки» и „лапки“',
  'नमस्ते, सब ठीक है',
  'नेपाली: सबै ठीक छ',
  'Kia ora, all good',
  "Mālō 'aupito",
  '請假半天',
  'Zero\u200bwidth and non\u00a0breaking spaces',
  'Price was 1,299.99 instead of 1 299,99',
  '"quoted from start to end"',
  ',starts with a comma',
  'ends with a backslash \\',
  'Null',
  'null',
  'NULL',
  'undefined',
  'Смена закрыта автоматически, сотрудник забыл нажать «Завершить». '.repeat(6).trim(),
  'A long note about the evening: '.concat(
    'the delivery came late, the cold chain log was filled in, the shelves in aisles 3, 4 and 5 were restocked, ',
    'two customers asked for refunds (both approved by the duty manager), the card terminal rebooted twice, ',
    'and the alarm code was changed at closing — see the "handover" notebook for details.',
  ),
];

/** `"comment":<json>` fragments, index-aligned with SHIFT_COMMENTS. */
export const SHIFT_COMMENT_FRAGMENTS: readonly string[] = SHIFT_COMMENTS.map(
  (text) => `"comment":${JSON.stringify(text)}`,
);

/** Comments an exporter must neutralise as spreadsheet formulas (leading = + - @ or tab). */
export function isFormulaLike(text: string): boolean {
  return /^[=+\-@\t\r]/.test(text);
}
