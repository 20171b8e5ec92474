import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { KEY_PREFIX } from '../index.js';
import { BENIGN_LOOKALIKES, PLANTED_SECRETS, plantedSecretsText } from '../testing/planted-secrets.js';
import { sharedData } from '../testing/shared-data.js';
import { passesLuhn } from './checks.js';
import { redact, redactionMarker } from './redact.js';
import { GITLEAKS_DROPPED, GITLEAKS_RULES, GITLEAKS_VERSION } from './vendor/gitleaks/rules.generated.js';

const LOCOMO = sharedData('locomo-dev.json', 'CAIRN_LOCOMO_DATA');

describe('redact', () => {
  test('the fixture holds at least 100 distinct secret formats and 50 look-alikes', () => {
    assert.ok(PLANTED_SECRETS.length >= 100, `only ${PLANTED_SECRETS.length}`);
    assert.equal(new Set(PLANTED_SECRETS.map((p) => p.kind)).size, PLANTED_SECRETS.length);
    assert.ok(BENIGN_LOOKALIKES.length >= 50, `only ${BENIGN_LOOKALIKES.length}`);
  });

  for (const [i, text] of BENIGN_LOOKALIKES.entries()) {
    test(`look-alike ${i + 1} is not a secret: left untouched`, () => {
      assert.deepEqual(redact(text), { text, findings: [] }, text);
    });
  }

  for (const planted of PLANTED_SECRETS) {
    test(`${planted.kind}: removed, and marked [redacted:${planted.rule}]`, () => {
      const { text, findings } = redact(planted.line);
      assert.ok(!text.includes(planted.secret), `survived: ${text}`);
      assert.ok(text.includes(redactionMarker(planted.rule)), `no ${redactionMarker(planted.rule)} in: ${text}`);
      assert.ok(findings.some((f) => f.rule === planted.rule && f.count >= 1));
      assert.ok(!JSON.stringify(findings).includes(planted.secret));
    });
  }

  test('all at once: every secret gone, the prose and the labels around them kept, findings counted', () => {
    const { text, findings } = redact(plantedSecretsText);
    for (const { secret, kind } of PLANTED_SECRETS) assert.ok(!text.includes(secret), `${kind} survived`);
    assert.match(text, /^Please deploy the billing service with these settings\./);
    assert.match(text, /postgres:\/\/app:\[redacted:url-credentials\]@db\.internal:5432\/billing/);
    assert.match(text, /\nDB_PASSWORD=\[redacted:secret-assignment\]\n/);
    assert.match(text, /\nSECRET_KEY=\[redacted:secret-assignment\]\n/);
    assert.match(
      text,
      /AccountName=acmebilling;AccountKey=\[redacted:azure-storage-key\];EndpointSuffix=core\.windows\.net/,
    );
    assert.match(text, /my password is \[redacted:password-phrase\]\./);
    assert.match(text, /Card: \[redacted:credit-card\], exp 12\/29/);
    const total = findings.reduce((n, f) => n + f.count, 0);
    assert.ok(total >= PLANTED_SECRETS.length, `${total} findings`);
    assert.equal(findings.find((f) => f.rule === 'credit-card')?.count, 4);
  });

  test('a Cairn key is redacted wherever it appears', () => {
    // Key-shaped: the prefix, 30 random base62 characters and a 6-character checksum (the server's key-format test uses a minted one).
    const key = `${KEY_PREFIX}${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x').slice(0, 36)}`;
    assert.equal(redact(`use ${key} please`).text, 'use [redacted:cairn-key] please');
    assert.ok(!redact(`Authorization: Bearer ${key}`).text.includes(key));
  });

  test('idempotent: redacting twice changes nothing more', () => {
    const once = redact(plantedSecretsText).text;
    assert.deepEqual(redact(once), { text: once, findings: [] });
  });

  test("a secret name's value never takes the next line", () => {
    // An empty value keeps the next line readable, and that line's own secret is still found.
    const cases: [string, string][] = [
      ['PASSWORD=\nSECRET_KEY=pgXlFwzQQzmEoWlPuZw', 'PASSWORD=\nSECRET_KEY=[redacted:secret-assignment]'],
      [
        'DB_PASSWORD=\r\nAPI_URL=https://api.example.com/v1\r\n',
        'DB_PASSWORD=\r\nAPI_URL=https://api.example.com/v1\r\n',
      ],
      [
        'PASSWORD=\nAPI_KEY=hunter2isnotreal99\nTOKEN=\nDEBUG=1',
        'PASSWORD=\nAPI_KEY=[redacted:secret-assignment]\nTOKEN=\nDEBUG=1',
      ],
      ['password:\n  host: db.internal', 'password:\n  host: db.internal'],
      ['api_key:\n  enabled: true', 'api_key:\n  enabled: true'],
      ['secret_token =\n  abcdefghij1234567890XYZqq', 'secret_token =\n  abcdefghij1234567890XYZqq'],
      ['pw:\nhello_world', 'pw:\nhello_world'],
      ['my password is\nsomewhere in the vault', 'my password is\nsomewhere in the vault'],
      [
        'Authorization:\nX-Request-Id: 8f14e45fceea167a5a36dedd4bea2543',
        'Authorization:\nX-Request-Id: 8f14e45fceea167a5a36dedd4bea2543',
      ],
    ];
    for (const [input, expected] of cases) assert.equal(redact(input).text, expected, JSON.stringify(input));
  });

  test('card numbers: only Luhn-valid numbers of a card network; order numbers and other digits are kept', () => {
    assert.equal(redact('order 4111 1111 1111 1112 shipped').text, 'order 4111 1111 1111 1112 shipped');
    // Random 16-digit order numbers that fail Luhn, with and without separators, are never touched.
    let seed = 7;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    let kept = 0;
    while (kept < 200) {
      const digits = `4${Array.from({ length: 15 }, () => Math.floor(random() * 10)).join('')}`;
      if (passesLuhn(digits)) continue;
      const spaced = digits.replace(/(\d{4})(?=\d)/g, '$1 ');
      const text = `Order ${digits} and ${spaced}`;
      assert.equal(redact(text).text, text);
      kept++;
    }
    assert.equal(redact('charge 4012-8888-8888-1881 now').text, 'charge [redacted:credit-card] now');
  });

  test('card numbers: a Luhn-valid digit run inside a hex id or a word is not a card', () => {
    // Found by the outage test: this SHA-1 holds 4711786722361, which passes Luhn.
    const sha = 'c1cc05ed291d78ee8cf94d4711786722361bf9ae';
    assert.equal(redact(`note ${sha}`).text, `note ${sha}`);
    assert.equal(
      redact('ref x4111111111111111y and id_4012888888881881').text,
      'ref x4111111111111111y and id_4012888888881881',
    );
    assert.equal(redact('card 4012888888881881.').text, 'card [redacted:credit-card].');
  });

  test('ordinary code and prose stay as they are', () => {
    const samples = [
      'Always use pnpm. The password policy says 12 characters. See https://example.com/docs and sk-learn docs.',
      'commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it; see also a94a8fe5ccb19ba61c4c0873d391e987982fbbd3.',
      'Request id 123e4567-e89b-12d3-a456-426614174000 at 2024-05-01T10:00:00.000Z, retried at 2024-05-01 10:00:05+02:00.',
      'Call me on +1 (555) 123-4567 or 0044 20 7946 0958; fax 555-0100.',
      'Order #10293847 shipped; tracking 1Z999AA10123456784; invoice 2024-000123; epoch 1714557600000.',
      'const password = await getPassword(user);\nconst token = response.data.token;\nif (!apiKey) throw new Error("missing");',
      'password: ${DB_PASSWORD}\ntoken: {{ secrets.GITHUB_TOKEN }}\napi_key: <your-api-key>\nSECRET_KEY=changeme\nPWD=/home/me/project',
      'The API key is stored in the vault. Rotate the token every 90 days. My password manager is 1Password.',
      'git rebase -i HEAD~3 && git push --force-with-lease origin feature/ABC-1234-login-page',
      'docker run -p 5432:5432 -e POSTGRES_DB=app postgres:16; see https://github.com/gitleaks/gitleaks/blob/master/README.md',
      'Base64 of hello world is aGVsbG8gd29ybGQ= and the sha256 is b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9.',
      'function AbstractSingletonProxyFactoryBean2() {} // ThisIsAVeryLongCamelCaseIdentifier1234',
      'const apiKey = process.env.API_KEY;\napi_key = os.environ["OPENAI_API_KEY"]\nheaders = {"Authorization": f"Bearer {token}"}\nfetch(url, { credentials: include })',
      'export const TOKEN_EXPIRY_SECONDS = 3600;\npassword_min_length = 12\ntokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")\ntoken_type: "bearer"',
    ];
    for (const sample of samples) assert.deepEqual(redact(sample), { text: sample, findings: [] }, sample);
  });

  test('conversation turns (LoCoMo) are left alone', { skip: LOCOMO.skip }, (t) => {
    const data = locomo();
    let turns = 0;
    const changed: string[] = [];
    for (const sample of data) {
      for (const session of Object.values(sample.conversation)) {
        if (!Array.isArray(session)) continue;
        for (const turn of session as { text?: string; blip_caption?: string }[]) {
          for (const text of [turn.text, turn.blip_caption]) {
            if (!text) continue;
            turns++;
            if (redact(text).text !== text) changed.push(text);
          }
        }
      }
    }
    t.diagnostic(`${changed.length} of ${turns} turns changed`);
    assert.ok(turns > 3000);
    assert.deepEqual(changed, []);
  });

  test("hostile 64 KB texts stay fast (JavaScript backtracks where gitleaks' RE2 does not)", (t) => {
    const fill = (s: string) => s.repeat(Math.ceil(65_536 / s.length)).slice(0, 65_536);
    const hostile = [
      'access_token_value_',
      'password_',
      'curl -H "Authorization: ',
      'authorization: ',
      'basic ',
      'key = "',
      '"key": "',
      'my password is x',
      'ab:cd@',
      '://a:',
      '4111 1111 ',
      'QWxhZGRpbjpvcGVuIHNlc2FtZQ',
      'a',
      'the quick brown fox jumps over the lazy dog ',
      'kind: secret\ndata:\n',
      'redis-cli -h x ',
      'docker login -u x ',
      '-passin pass:',
      'smbclient -U a ',
      'ENV A_PASS ',
      'set -x B_SECRET ',
      '- name: DB_PASS\n  ',
      'a:1:b:c:',
      '*:*:*:*:',
      '$2y$05$abc',
      '$6$rounds=5000$ab$',
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC ',
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n',
      'AAAA AAAA AAAA AAAA ',
    ];
    let worst = 0;
    for (const unit of hostile) {
      const started = performance.now();
      redact(fill(unit));
      const took = performance.now() - started;
      if (process.env.REDACT_TIMES) t.diagnostic(`${JSON.stringify(unit)}: ${took.toFixed(0)} ms`);
      worst = Math.max(worst, took);
    }
    t.diagnostic(`slowest: ${worst.toFixed(0)} ms`);
    // About 50 ms each on an idle machine; the bound leaves room for a loaded CI runner.
    assert.ok(worst < 1_500, `${worst} ms`);
  });

  test('the vendored gitleaks rules are all compiled in, none silently lost', () => {
    assert.equal(GITLEAKS_VERSION.rulesTranslated, GITLEAKS_RULES.length);
    assert.equal(GITLEAKS_VERSION.rulesInSource, GITLEAKS_RULES.length + GITLEAKS_DROPPED.length);
    assert.ok(GITLEAKS_RULES.length >= 200);
    for (const rule of GITLEAKS_RULES) assert.doesNotThrow(() => new RegExp(rule.source, `${rule.flags}gd`), rule.id);
  });
});

/** LoCoMo conversations, read where they are shared (never copied into the repository). */
function locomo(): { conversation: Record<string, unknown> }[] {
  return JSON.parse(readFileSync(LOCOMO.require(), 'utf8'));
}
