import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { linearize, translate, Untranslatable } from '../../scripts/re2-to-js.mjs';

/** Whether the translated pattern finds a match in `text`. */
const finds = (re2: string, text: string) => {
  const { source, flags } = translate(re2);
  return new RegExp(source, flags).test(text);
};

describe('RE2 → JavaScript', () => {
  test('a leading (?i) becomes the i flag', () => {
    assert.deepEqual(translate('(?i)abc'), { source: 'abc', flags: 'i' });
  });

  test('(?i) in the middle applies to the rest of its group only, as in RE2', () => {
    const re2 = String.raw`\b(p8e-(?i)[a-z0-9]{4})x`;
    assert.ok(finds(re2, 'p8e-AbC1x'));
    assert.ok(!finds(re2, 'P8E-abc1x'), 'the part before (?i) stays case-sensitive');
    assert.ok(!finds(re2, 'p8e-abc1X'), 'the part after the group stays case-sensitive');
  });

  test('(?i:…) and (?-i:…) groups', () => {
    assert.ok(finds('hf_(?i:[a-z]{3})$', 'hf_AbC'));
    assert.ok(!finds('hf_(?i:[a-z]{3})$', 'HF_abc'));
    const atlassian = '(?i)key(?:(?-i:JIRA|[Jj]ira))=';
    assert.ok(finds(atlassian, 'KEYJira='));
    assert.ok(!finds(atlassian, 'keyjIRA='));
  });

  test('a negated class under (?i) excludes both cases', () => {
    assert.ok(!finds('x(?i:[^a-z])y', 'xQy'));
    assert.ok(finds('x(?i:[^a-z])y', 'x1y'));
  });

  test('\\z, POSIX classes, (?s:.) and . keep their RE2 meaning', () => {
    assert.ok(finds(String.raw`ab\z`, 'xab'));
    assert.ok(!finds(String.raw`ab\z`, 'abx'));
    assert.ok(finds('^[[:alnum:]]{3}$', 'a1Z'));
    assert.ok(finds('a(?s:.)b', 'a\nb'));
    assert.ok(!finds('a.b', 'a\nb'));
  });

  test('syntax JavaScript cannot express faithfully is refused, not guessed', () => {
    assert.throws(() => translate(String.raw`\pL+`), Untranslatable);
    assert.throws(() => translate('(?m)^a$'), Untranslatable);
  });

  test('linearize drops the variable-name prefix and bounds .*', () => {
    const rule = linearize(translate(String.raw`(?i)[\w.-]{0,50}?(?:token)=(\w+)`));
    assert.equal(rule.namePrefix, true);
    assert.ok(!rule.source.startsWith(String.raw`[\w.\-]{0,50}?`));
    assert.equal(linearize(translate(String.raw`\bcurl\b.*-u`)).source, String.raw`\bcurl\b[^\n]{0,1000}-u`);
  });
});
