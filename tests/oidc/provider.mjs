// A real OpenID Connect provider on loopback for Lorebase's tests (oidc-provider 9.13.3).
//
// Run by lorebase_keeper.testing.OidcProvider; by hand:
//   node tests/oidc/provider.mjs PORT   (or OIDC_PORT=PORT node tests/oidc/provider.mjs)
// Environment:
//   OIDC_JWKS           file holding the private signing keys, {"keys": [JWK, ...]} (required;
//                       restart on the same port with another file to rotate keys)
//   OIDC_AUDIENCE       aud of JWT access tokens (the default resource); urn:lorebase:keeper
//   OIDC_REDIRECT_URIS  comma-separated redirect URIs of lorebase-web
//   OIDC_ACCESS_TOKEN_TTL seconds an access token lives (600)
// Accounts: any login name signs in (devInteractions: any password); `alice` has the groups
// [supply-reviewers], everyone else none. Claims: sub, name, email, groups.
import fs from 'node:fs';
import process from 'node:process';

import Provider from 'oidc-provider';

const port = Number(process.argv[2] || process.env.OIDC_PORT);
if (!Number.isInteger(port) || port <= 0) {
  console.error('usage: node provider.mjs PORT (or set OIDC_PORT)');
  process.exit(2);
}
if (!process.env.OIDC_JWKS) {
  console.error('OIDC_JWKS must name a file holding {"keys": [private JWK, ...]}');
  process.exit(2);
}
const jwks = JSON.parse(fs.readFileSync(process.env.OIDC_JWKS, 'utf8'));
const audience = process.env.OIDC_AUDIENCE || 'urn:lorebase:keeper';
const redirectUris = (process.env.OIDC_REDIRECT_URIS || 'http://127.0.0.1/callback')
  .split(',')
  .map((uri) => uri.trim())
  .filter(Boolean);
const accessTokenTTL = Number(process.env.OIDC_ACCESS_TOKEN_TTL || 600);
const issuer = `http://127.0.0.1:${port}`;

const GROUPS = { alice: ['supply-reviewers'] };
const SCOPE = 'openid profile email groups offline_access';

function groupsOf(accountId) {
  return GROUPS[accountId] || [];
}

const configuration = {
  clients: [
    {
      client_id: 'lorebase-web',
      token_endpoint_auth_method: 'none',
      application_type: 'web',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: redirectUris,
    },
    {
      client_id: 'lorebase-cli',
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      grant_types: [
        'urn:ietf:params:oauth:grant-type:device_code',
        'authorization_code',
        'refresh_token',
      ],
      response_types: ['code'],
      redirect_uris: ['http://127.0.0.1/callback'],
    },
  ],
  jwks,
  cookies: { keys: ['lorebase-test-provider-cookie-key'] },
  claims: {
    openid: ['sub'],
    profile: ['name'],
    email: ['email'],
    groups: ['groups'],
  },
  scopes: ['openid', 'offline_access', 'profile', 'email', 'groups'],
  conformIdTokenClaims: false,
  async findAccount(_ctx, id) {
    return {
      accountId: id,
      async claims() {
        return { sub: id, name: id, email: `${id}@example.test`, groups: groupsOf(id) };
      },
    };
  },
  async extraTokenClaims(_ctx, token) {
    if (token.kind === 'AccessToken' && token.accountId) {
      return { groups: groupsOf(token.accountId) };
    }
    return undefined;
  },
  async issueRefreshToken(_ctx, client) {
    return client.grantTypeAllowed('refresh_token');
  },
  features: {
    devInteractions: { enabled: true },
    deviceFlow: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      async defaultResource() {
        return audience;
      },
      async useGrantedResource() {
        return true;
      },
      async getResourceServerInfo(_ctx, resourceIndicator) {
        if (resourceIndicator !== audience) {
          throw new Provider.errors.InvalidTarget();
        }
        return {
          scope: SCOPE,
          audience,
          accessTokenFormat: 'jwt',
          accessTokenTTL,
          jwt: { sign: { alg: jwks.keys[0].alg || 'RS256' } },
        };
      },
    },
  },
  ttl: {
    AccessToken: accessTokenTTL,
    AuthorizationCode: 120,
    DeviceCode: 600,
    IdToken: accessTokenTTL,
    Interaction: 600,
    Session: 3600,
    Grant: 3600,
    RefreshToken: 3600,
  },
};

const provider = new Provider(issuer, configuration);
provider.on('server_error', (_ctx, error) => console.error('server_error', error));
const server = provider.listen(port, '127.0.0.1', () => {
  console.log(`oidc-provider listening on ${issuer}`);
});

function stop() {
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
