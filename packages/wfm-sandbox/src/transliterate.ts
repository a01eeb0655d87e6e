// Logins are ASCII even for users with Cyrillic or accented names: a simple Russian-to-Latin
// transliteration plus accent stripping, lower-cased, anything else dropped.

const CYRILLIC: Readonly<Record<string, string>> = {
  а: 'a',
  б: 'b',
  в: 'v',
  г: 'g',
  д: 'd',
  е: 'e',
  ё: 'e',
  ж: 'zh',
  з: 'z',
  и: 'i',
  й: 'y',
  к: 'k',
  л: 'l',
  м: 'm',
  н: 'n',
  о: 'o',
  п: 'p',
  р: 'r',
  с: 's',
  т: 't',
  у: 'u',
  ф: 'f',
  х: 'kh',
  ц: 'ts',
  ч: 'ch',
  ш: 'sh',
  щ: 'shch',
  ъ: '',
  ы: 'y',
  ь: '',
  э: 'e',
  ю: 'yu',
  я: 'ya',
};

export function transliterate(name: string): string {
  let out = '';
  for (const ch of name.toLowerCase()) {
    const mapped = CYRILLIC[ch];
    if (mapped !== undefined) out += mapped;
    else if (ch === '-' || ch === ' ') out += '-';
    else for (const base of ch.normalize('NFD')) if (/[a-z0-9]/.test(base)) out += base;
  }
  return out.replace(/-+/g, '-').replace(/^-|-$/g, '');
}
