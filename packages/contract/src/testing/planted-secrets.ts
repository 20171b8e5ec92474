/**
 * Realistic-looking (fake, randomly generated) secrets in the shapes people paste: every format
 * redaction must catch, each in the context it usually comes in. Used by the redaction unit test,
 * the capture script's tests and the end-to-end tests of every write path.
 */
export interface PlantedSecret {
  /** What it is. */
  kind: string;
  /** The part that must never be stored. */
  secret: string;
  /** The line it is pasted in. */
  line: string;
  /** The rule whose `[redacted:<rule>]` marker replaces it. */
  rule: string;
}

const plant = (kind: string, secret: string, line: (s: string) => string, rule = kind): PlantedSecret => ({ kind, secret, line: line(secret), rule });

const PEM_RSA = 'MIIEowIBAAKCAQEAjFBKVZ5BYN0GFJJ1+utU01HgMcFRp+Zqpe/yCrSvO5pafo4lx0NxdhG/l6A1LtfCwsCR7XAVokBASrfNQHb';
const PEM_OPENSSH = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABOhuvqZ83F5Mfm+Szuj19L4iYXwQdGn61Cz6SfrpasFhpgsQjBkvH';
const PEM_EC = 'MHcCAQEEIA8u6esFOXrt/vkskpsUwzpanbLhm9XtTK3L1tPMt3OSdqWy85KtrCdZMgjo8+EhxM+pzsexSBmiKOzP+E2cmsaOAxVOK2';

export const PLANTED_SECRETS: readonly PlantedSecret[] = [
  plant('cairn-key', 'cairn_tkn_RUBT_LyMdA6vC61eN1icCwToVMT9a7hY467BW_1OIkO', (s) => `My Cairn key is ${s}.`),
  plant('aws-access-key', 'AKIALZ449BAIOTOTK003', (s) => `aws_access_key_id=${s}`),
  plant('aws-secret-labelled', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', (s) => `aws_secret_access_key = ${s}`, 'aws-secret-key'),
  plant('aws-secret-unlabelled', 'uGVHCzz+y0I7FZlGItxcWr6+pnXYQrCRETknkaU7', (s) => `the other one is ${s} from the console`, 'aws-secret-key'),
  plant('aws-secret-unlabelled-2', 'VC5a5GRuViLAIuZpdEtcxjZq1J9j1tJnts9HaVmK', (s) => `${s}`, 'aws-secret-key'),
  plant('github-pat', 'ghp_DNxril3RavGD5MfvJ7NScUykT8C8UBkkpdhi', (s) => `GitHub ${s} works`, 'github-token'),
  plant('github-token-env', 'gho_G37LeXSyYV4g6snRoUYA4fXr6nzrvZcmT4a4', (s) => `GITHUB_TOKEN=${s}`, 'github-token'),
  plant('github-fine-grained', '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', (s) => `fine-grained: ${s}`, 'github-token'),
  plant('gitlab-token', 'glpat-U5AZzcWQa3oBC4IPlNKn', (s) => `GitLab ${s}`),
  plant('slack-bot-token', 'xoxb-231629376900-5041570338758-YE3JVkHQ2w81rmkRvQbVp2fm', (s) => `Slack bot ${s};`, 'slack-token'),
  plant('slack-user-token', 'xoxp-933260975886-879106270022-1362841833935-16992d662326a1e58b388411b24a0875', (s) => `slack user ${s}`, 'slack-token'),
  plant('slack-webhook', 'https://hooks.slack.com/services/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', (s) => `post alerts to ${s} please`),
  plant('anthropic-key', 'sk-ant-api03-hdW2-SFi2DmZVVrLvHdgwHvpsbgh5AXLbTKs9JrlLpi15sXvJ-SmgJqwkuCbzw86Xkw9Hid3NiMiCrnm_6h_gdVF6DV-FAA', (s) => `ANTHROPIC_API_KEY=${s}`),
  plant('openai-key', 'sk-proj-ekg00ikyexkidT88djQkPb75tX9rnSD5qyCnogpjkVnd7zVk', (s) => `OpenAI ${s}`),
  plant('stripe-secret-key', 'sk_live_51paqWHRmaCq8Nb9gHZAd5qE2uM3oOdRritcZlwY5z7a46t92gbuCpAMuFKw41', (s) => `Stripe ${s}`, 'stripe-key'),
  plant('stripe-restricted-key', 'rk_live_515zBnfrtDDN7KDCylvzdufkuIbmnTxQ5i8OfvC9MMW84QUynSIXvebQJAEo3U', (s) => `restricted ${s}`, 'stripe-key'),
  plant('google-api-key', 'AIzaPm7aKAjCbOfltQumZYXrTTIzPXxwvbNcJ92', (s) => `Google ${s}`),
  plant('npm-token', 'npm_6WfrsjHCERolvjVRwVMdIr7wbLlIX8QWgDiv', (s) => `//registry.npmjs.org/:_authToken=${s}`),
  plant('huggingface-token', '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', (s) => `HF_TOKEN=${s}`),
  plant('sendgrid-api-key', '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', (s) => `SendGrid: ${s}`),
  plant('telegram-bot-token', '7371312857:AASPudrAlgAcH4TTjm02whFt1UyS0euOJ6L', (s) => `bot ${s} for alerts`),
  plant('discord-bot-token', 'MTsBZIBVWgd4w0URQoAqxCxe9Z.0xipP2.-cN3kXHy8vdELbpaz4nWJxjNs1xzN8K8O7h9lk', (s) => `the bot logs in with ${s}`),
  plant(
    'azure-storage-key',
    '0Kwl9FNM+tP+OwaR4CiHVo0DqOK+pVlSoqOp9CmmkTCCmR7J8iOc03fnlsDnFWtUPCMoL5ME9pQb5FdRLIgxPQ==',
    (s) => `DefaultEndpointsProtocol=https;AccountName=acmebilling;AccountKey=${s};EndpointSuffix=core.windows.net`,
  ),
  plant('jwt', 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c', (s) => `session=${s}`),
  plant('bearer-header', '8hlQ5J9ZxZFJwF8NbBmVEV-cws7RXu8NIj815WXS', (s) => `Authorization: Bearer ${s}`, 'authorization-header'),
  plant('basic-header', 'ZGVwbG95LWJvdDpXOXYhclQycSNMbQ==', (s) => `Authorization: Basic ${s}`, 'authorization-header'),
  plant('basic-curl', 'ZGVwbG95LWJvdDpXOXYhclQycSNMbQ', (s) => `curl -H "X-Auth: Basic ${s}=" https://ci.internal/api`, 'basic-auth'),
  plant('postgres-url-password', 'S3cr3tPassw0rd', (s) => `DATABASE_URL=postgres://app:${s}@db.internal:5432/billing`, 'url-credentials'),
  plant('redis-url-password', 'Rds-p4ss-9q', (s) => `REDIS_URL=redis://:${s}@cache.internal:6379/0`, 'url-credentials'),
  plant('https-url-password', 'd3ploy!Key', (s) => `git clone https://deploy:${s}@git.internal/acme/app.git`, 'url-credentials'),
  plant('mongo-url-password-with-at', 'Mongo@Pass2024', (s) => `mongodb+srv://admin:${s}@cluster0.abcde.mongodb.net/prod`, 'url-credentials'),
  plant('db-password', 'hunter2-but-longer', (s) => `DB_PASSWORD=${s}`, 'secret-assignment'),
  plant('secret-key', 'pgXlFwzQQz%mEoWlPuZ-w*nCETIPgJ@+Lr_%T0ct4S__uzsIe^', (s) => `SECRET_KEY=${s}`, 'secret-assignment'),
  plant('api-token', 'at_8oWWSdRWzBWSxERfaIDUrkjNPr7a', (s) => `API_TOKEN=${s}`, 'secret-assignment'),
  plant('password-with-at', 'p@ssw0rd@2024', (s) => `SMTP_PASSWORD=${s}`, 'secret-assignment'),
  plant('password-with-commas', 'red,green,blue7', (s) => `REDIS_PASSWORD=${s}`, 'secret-assignment'),
  plant('password-with-spaces', 'correct horse battery staple', (s) => `ADMIN_PASSWORD="${s}"`, 'secret-assignment'),
  plant('password-quoted-commas-at', 'Q1, q2 @ home', (s) => `"password": "${s}",`, 'secret-assignment'),
  plant('short-password', 'x7q', (s) => `MYSQL_PWD=${s}`, 'secret-assignment'),
  plant('yaml-client-secret', 'xnxmpp..FKNi87hY007u-Ul5DKRi9rXVvm2XcsL0', (s) => `  client_secret: ${s}`, 'secret-assignment'),
  plant('json-api-key', 'e01a02d7ee8dfc10e12d2fac7e7ca464', (s) => `{"api_key": "${s}"}`, 'secret-assignment'),
  plant(
    'session-token',
    'OttCeRkejDBnbGDYVonNbU8UolOSV9Dl/oIdIW8kCUR3rB+QkNb+UwUOJiZRa8emyDjuNixKN6yu3Ty97uEFeyu/4XIRsDJdnk9GrmhcU2Hrz94RJUFYeXYR==',
    (s) => `export AWS_SESSION_TOKEN=${s}`,
    'secret-assignment',
  ),
  plant('my-password-is', 'Tr0ub4dor&3', (s) => `By the way my password is ${s}.`, 'password-phrase'),
  plant('the-password-is', 'sunflower77', (s) => `the wifi password is ${s}, ask Bob if it fails`, 'password-phrase'),
  plant('pw-colon', 'Zq8!mk', (s) => `pw: ${s}`, 'password-phrase'),
  plant('credit-card-visa-spaces', '4111 1111 1111 1111', (s) => `Card: ${s}, exp 12/29`, 'credit-card'),
  plant('credit-card-visa-plain', '4012888888881881', (s) => `charge ${s} again`, 'credit-card'),
  plant('credit-card-amex', '3782 822463 10005', (s) => `Amex ${s}`, 'credit-card'),
  plant('credit-card-mastercard-dashes', '5555-5555-5555-4444', (s) => `MC ${s}.`, 'credit-card'),
  plant('shopify-token', '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', (s) => `Shopify ${s}`, 'shopify-access-token'),
  plant('twilio-api-key', 'SK8e708c16d3a1c3d29b70f5d51bdcb90d', (s) => `Twilio ${s}`),
  plant('doppler-token', 'dp.pt.vP9Ebumph9ywTyMOewAEQR97m95x5ypK1x45h8seBLt', (s) => `Doppler ${s}`, 'doppler-api-token'),
  plant('pypi-token', 'pypi-AgEIcHlwaS5vcmcN7yXAP3VRxhjh5RzmCrSEShvLpqbcADYChNmXgIE5CxUVJgaPNkaomvNCd7U6nXFsObjga', (s) => `PyPI ${s}`, 'pypi-upload-token'),
  plant('linear-api-key', 'lin_api_NdgWTvfvchd7Pk7RJdzMVnLMqVR7ITUapdkpmCfW', (s) => `Linear ${s}`),
  plant('postman-api-key', 'PMAK-06fad20920028ac7c203c533-52761a26f06b9afdb2b3ab594e4feb6428', (s) => `Postman ${s}`, 'postman-api-token'),
  plant('digitalocean-token', 'dop_v1_f053c0d276326ed109a4212ffdbfb94fe64d12540e74480d54d7d61036ae1174', (s) => `DO ${s}`, 'digitalocean-pat'),
  plant('age-secret-key', 'AGE-SECRET-KEY-1XNYENQYH9CV0CV58LUKM4KEW43F6TA3XZE24KP39FAQMDZM0AAWG0UKAWY', (s) => `age key ${s}`),
  plant('databricks-token', 'dapi5adcfccce29e512f56db0a63c793a173', (s) => `Databricks ${s}`, 'databricks-api-token'),
  plant('pulumi-token', 'pul-eecd6b80e238e5b867d368d1a1faa22d41d93ad0', (s) => `Pulumi ${s}`, 'pulumi-api-token'),
  plant('vault-token', 'hvs.yEZ1iZXHiFYEVM2nlyL3XYguEnMX748efWutKle3d08DogINEeqbNfW2CxYHhKgptMFg5JEwpV4-Yfpq9TPzlU97mEmj1XGw4pFq', (s) => `VAULT ${s}`, 'vault-service-token'),
  plant('rsa-private-key', PEM_RSA, (s) => `-----BEGIN RSA PRIVATE KEY-----\n${s}\n-----END RSA PRIVATE KEY-----`, 'private-key'),
  plant('openssh-private-key', PEM_OPENSSH, (s) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${s}\n-----END OPENSSH PRIVATE KEY-----`, 'private-key'),
  plant('ec-private-key', PEM_EC, (s) => `-----BEGIN EC PRIVATE KEY-----\n${s}\n-----END EC PRIVATE KEY-----`, 'private-key'),
];

/** A prompt a careless user might paste, holding all of the above. */
export const plantedSecretsText = `Please deploy the billing service with these settings.\n${PLANTED_SECRETS.map((p) => p.line).join('\n')}\nThanks!\n`;
