import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEndpoint } from './counted-attempt.js';

describe('isEndpoint', () => {
  it('matches every spelling a router might still serve', () => {
    for (const path of [
      '/api/auth/sign-in/email',
      '/api/auth/sign-in/email/',
      '/api/auth//sign-in/email',
      '/api/auth/sign-in/%65mail',
      '/API/Auth/Sign-In/Email',
    ]) {
      assert.ok(isEndpoint(path, '/api/auth/sign-in/email'), path);
    }
  });
  it('does not match other endpoints', () => {
    for (const path of [
      '/api/auth/sign-in/social',
      '/api/auth/sign-in/email-otp',
      '/api/auth/sign-in',
      '/api/auth/sign-in/%zz',
    ]) {
      assert.equal(isEndpoint(path, '/api/auth/sign-in/email'), false, path);
    }
  });
});
