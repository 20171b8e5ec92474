import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { captureEndpoint, loadCaptureConfig } from './config.js';
import { capturePaths } from './paths.js';

function homeWithConfig(content: string, mode: number) {
  const paths = capturePaths(mkdtempSync(join(tmpdir(), 'cairn-capture-config-')));
  mkdirSync(paths.dir, { mode: 0o700 });
  writeFileSync(paths.config, content);
  chmodSync(paths.config, mode);
  return paths;
}

describe('loadCaptureConfig', () => {
  const key = 'cairn_tkn_abcdefghijklmnop';

  it('prefers CAIRN_URL + CAIRN_API_KEY', () => {
    const paths = homeWithConfig(JSON.stringify({ url: 'https://file.example', apiKey: 'other' }), 0o600);
    assert.deepEqual(loadCaptureConfig({ CAIRN_URL: 'https://env.example', CAIRN_API_KEY: key }, paths), {
      ok: true,
      config: { url: 'https://env.example', apiKey: key },
    });
  });

  it('reads a 0600 ~/.cairn/capture.json', () => {
    const paths = homeWithConfig(JSON.stringify({ url: 'https://cairn.example', apiKey: key }), 0o600);
    assert.deepEqual(loadCaptureConfig({ CAIRN_URL: 'https://only-half.example' }, paths), {
      ok: true,
      config: { url: 'https://cairn.example', apiKey: key },
    });
  });

  it('refuses a file others can read, with a reason that names the fix and not the key', () => {
    const paths = homeWithConfig(JSON.stringify({ url: 'https://cairn.example', apiKey: key }), 0o644);
    const result = loadCaptureConfig({}, paths);
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.reason : '', /mode 644 .*chmod 600/);
    assert.doesNotMatch(!result.ok ? result.reason : '', /cairn_tkn_/);
  });

  it('explains a missing, broken or incomplete configuration', () => {
    const missing = loadCaptureConfig({}, capturePaths(mkdtempSync(join(tmpdir(), 'cairn-capture-none-'))));
    assert.match(!missing.ok ? missing.reason : '', /no configuration/);
    const broken = loadCaptureConfig({}, homeWithConfig('{', 0o600));
    assert.match(!broken.ok ? broken.reason : '', /not valid JSON/);
    const incomplete = loadCaptureConfig({}, homeWithConfig('{"url":"https://x"}', 0o600));
    assert.match(!incomplete.ok ? incomplete.reason : '', /"apiKey"/);
    const notUrl = loadCaptureConfig({ CAIRN_URL: 'ftp://x', CAIRN_API_KEY: key }, capturePaths('/nonexistent'));
    assert.match(!notUrl.ok ? notUrl.reason : '', /not an http\(s\) URL/);
  });
});

describe('captureEndpoint', () => {
  it('appends /api/v1/capture to the base URL, also when given the MCP address', () => {
    assert.equal(captureEndpoint('https://cairn.example.com'), 'https://cairn.example.com/api/v1/capture');
    assert.equal(captureEndpoint('https://cairn.example.com/'), 'https://cairn.example.com/api/v1/capture');
    assert.equal(captureEndpoint('https://cairn.example.com/mcp'), 'https://cairn.example.com/api/v1/capture');
  });
});
