/**
 * The trait key a computation sends: the snake_case form of its name. Pure.
 *
 * The rules, in the order they apply:
 * 1. Unicode compatibility forms are unfolded and accents dropped: NFKD, then every combining mark
 *    is removed ("Café" → "Cafe", fullwidth "ＶＩＰ" → "VIP", "ﬁ" → "fi", "²" → "2").
 * 2. Latin letters that NFKD leaves whole are spelled in ASCII: ß → ss, æ → ae, œ → oe, ø → o,
 *    ł → l, đ and ð → d, þ → th, ı → i (upper case likewise).
 * 3. Apostrophes (' ’ ʼ) vanish without splitting a word: "Mary's Fans" → "marys_fans".
 * 4. Whitespace, punctuation and control characters (ASCII or not) separate words; a run of them
 *    becomes one underscore.
 * 5. Every other character outside ASCII letters and digits (CJK and other scripts, emoji, symbols
 *    such as © or €, non-ASCII digits) is dropped WITHOUT separating: "VIP🚀Users" → "VIPUsers".
 * 6. Words split where camelCase and acronyms meet: before an upper-case letter that follows a
 *    lower-case one ("highValue" → "high", "Value"), and before the last capital of a run of capitals
 *    when a lower-case letter follows it ("HTTPServer" → "HTTP", "Server"). Digits never split a word
 *    from its letters: "Q4" → "q4", "Top10Buyers" → "top10buyers", "Top 10 Buyers" → "top_10_buyers".
 * 7. Everything is lower-cased and the words are joined by one underscore; there are no leading,
 *    trailing or doubled underscores.
 * 8. A name left with no ASCII letter or digit has no key: traitKey returns null and the caller
 *    refuses the name.
 * 9. A key must not start with a digit (most warehouses and languages refuse such identifiers), so a
 *    key that would is prefixed with one underscore: "30 Day Actives" → "_30_day_actives". This is the
 *    one case of a leading underscore.
 */
export function traitKey(name: string): string | null {
  const unfolded = [...name.normalize('NFKD').replace(/\p{M}+/gu, '')].map((ch) => LATIN_SPELLING[ch] ?? ch).join('');
  const words: string[] = [];
  let current = '';
  for (const ch of unfolded) {
    if (/[A-Za-z0-9]/.test(ch)) current += ch;
    else if (APOSTROPHE.test(ch)) continue;
    else if (isSeparator(ch)) {
      if (current !== '') words.push(current);
      current = '';
    }
    // Anything else is dropped and leaves the word whole (rule 5).
  }
  if (current !== '') words.push(current);
  const key = words.flatMap(splitCamel).map((w) => w.toLowerCase()).join('_');
  if (key === '') return null;
  return /^[0-9]/.test(key) ? `_${key}` : key;
}

const APOSTROPHE = /^['\u2019\u02bc]$/u;
/** ASCII characters other than letters and digits, and Unicode whitespace, punctuation and controls. */
const isSeparator = (ch: string): boolean => ch.charCodeAt(0) < 0x80 || /^[\p{Z}\p{P}\p{Cc}]$/u.test(ch);

const LATIN_SPELLING: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'TH',
  ı: 'i',
};

/** "highValueUsers" → high, Value, Users; "HTTPServer" → HTTP, Server; digits stay with their letters. */
function splitCamel(word: string): string[] {
  return word
    .replace(/([a-z])(?=[A-Z])/g, '$1 ')
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .split(' ');
}
