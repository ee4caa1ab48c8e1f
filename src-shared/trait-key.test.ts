import { test } from 'node:test';
import assert from 'node:assert/strict';
import { traitKey } from './trait-key';

test('traitKey: the snake_case rules, one row each', () => {
  const table: [name: string, key: string | null, why: string][] = [
    ['VIP Users', 'vip_users', 'lower-cased, a space becomes an underscore'],
    ['vip_users', 'vip_users', 'a key is its own key'],
    ['highValueUsers', 'high_value_users', 'camelCase splits'],
    ['HighValueUsers', 'high_value_users', 'PascalCase splits'],
    ['HTTPServer', 'http_server', 'an acronym ends before the capital of the next word'],
    ['VIPUsers', 'vip_users', 'acronym then word'],
    ['iOS Users', 'i_os_users', 'a lower-case letter before a capital splits'],
    ['ALL CAPS', 'all_caps', 'capitals alone do not split'],
    ['Top 10 Buyers', 'top_10_buyers', 'a number between spaces is its own word'],
    ['Q4 Leads', 'q4_leads', 'digits stay with their letters'],
    ['Top10Buyers', 'top10buyers', 'no split between letters and digits, either way'],
    ['HTTP2Server', 'http2server', 'a digit ends no acronym'],
    ['Café Lovers', 'cafe_lovers', 'accents dropped by NFKD'],
    ['Ünïcödé Fans', 'unicode_fans', 'every combining mark is dropped'],
    ['ＶＩＰ　Users', 'vip_users', 'fullwidth letters and the ideographic space unfold'],
    ['Straße Team', 'strasse_team', 'ß is spelled ss'],
    ['Smørrebrød Øresund', 'smorrebrod_oresund', 'ø is spelled o'],
    ['Łódź', 'lodz', 'ł is spelled l, the rest decomposes'],
    ["Mary's Fans", 'marys_fans', 'an apostrophe does not split'],
    ['Mary’s Fans', 'marys_fans', 'nor does a typographic one'],
    ['Sign-up — Flow', 'sign_up_flow', 'a run of ASCII and Unicode punctuation is one underscore'],
    ['  --Hello__World--  ', 'hello_world', 'no leading, trailing or doubled underscores'],
    ['a.b/c:d', 'a_b_c_d', 'every punctuation mark separates'],
    ['Tab\tand\nnewline', 'tab_and_newline', 'control characters separate'],
    ['VIP 🚀 Users', 'vip_users', 'an emoji is dropped; the spaces around it are one run'],
    ['VIP🚀Users', 'vip_users', 'a dropped emoji does not separate; the camel rule still splits'],
    ['fans日本club', 'fansclub', 'CJK is dropped without separating'],
    ['日本 Fans', 'fans', 'CJK at the start leaves no underscore'],
    ['Price €100', 'price_100', 'a symbol is dropped'],
    ['Level²', 'level2', 'a superscript digit unfolds to its digit'],
    ['30 Day Actives', '_30_day_actives', 'a key never starts with a digit: prefixed with one underscore'],
    ['2024', '_2024', 'digits alone'],
    ['日本', null, 'nothing left: no key'],
    ['🚀 !!', null, 'symbols and punctuation only: no key'],
    ['', null, 'empty: no key'],
  ];
  for (const [name, key, why] of table) assert.equal(traitKey(name), key, `${JSON.stringify(name)}: ${why}`);
});
