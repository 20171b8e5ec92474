/** Realistic-looking (fake) secrets of every kind redaction must catch; used by client and server tests. */
export const PLANTED_SECRETS = [
  { kind: 'cairn-key', secret: 'cairn_tkn_4Qk9ZpLr2Xw8Yt6Vb3Nm1Hc5Df7GsJaEo0Ui2Ra9Pq' },
  { kind: 'aws-access-key', secret: 'AKIAIOSFODNN7EXAMPLE' },
  { kind: 'aws-secret', secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYZ' },
  { kind: 'github-token', secret: 'ghp_1A2b3C4d5E6f7G8h9I0jK1l2M3n4O5p6Q7r8' },
  { kind: 'github-fine-grained', secret: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP' },
  { kind: 'gitlab-token', secret: 'glpat-xY9zA8bC7dE6fG5hI4jK' },
  { kind: 'slack-token', secret: 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx' },
  { kind: 'anthropic-key', secret: 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789' },
  { kind: 'openai-key', secret: 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd' },
  { kind: 'stripe-key', secret: 'sk_live_51HxYzAbCdEfGhIjKlMnOpQr' },
  { kind: 'google-api-key', secret: 'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q' },
  { kind: 'jwt', secret: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c' },
  { kind: 'url-password', secret: 'S3cr3tPassw0rd' },
  { kind: 'assigned-secret', secret: 'hunter2-but-longer' },
  { kind: 'private-key', secret: 'MIIEowIBAAKCAQEA7bq98xMITEZ3zGFAKEFAKEFAKE' },
  { kind: 'npm-token', secret: 'npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789' },
] as const;

/** A prompt a careless user might paste, holding all of the above. */
export const plantedSecretsText = `Please deploy the billing service. My Cairn key is ${PLANTED_SECRETS[0].secret}.
AWS: aws_access_key_id=${PLANTED_SECRETS[1].secret}
aws_secret_access_key = ${PLANTED_SECRETS[2].secret}
GitHub ${PLANTED_SECRETS[3].secret} and ${PLANTED_SECRETS[4].secret}, GitLab ${PLANTED_SECRETS[5].secret}
Slack ${PLANTED_SECRETS[6].secret}; Anthropic ${PLANTED_SECRETS[7].secret}; OpenAI ${PLANTED_SECRETS[8].secret}
Stripe ${PLANTED_SECRETS[9].secret} Google ${PLANTED_SECRETS[10].secret}
Authorization: Bearer ${PLANTED_SECRETS[11].secret}
DATABASE_URL=postgres://app:${PLANTED_SECRETS[12].secret}@db.internal:5432/billing
DB_PASSWORD=${PLANTED_SECRETS[13].secret}
-----BEGIN RSA PRIVATE KEY-----
${PLANTED_SECRETS[14].secret}
-----END RSA PRIVATE KEY-----
//registry.npmjs.org/:_authToken=${PLANTED_SECRETS[15].secret}
`;
