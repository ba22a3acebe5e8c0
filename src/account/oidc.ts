/**
 * Sign-in to "My API Keys" through the platform's OpenID Connect provider
 * (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET): the authorization code
 * flow with PKCE, a state and a nonce, through `openid-client`.
 *
 * The account is the provider's `sub`; a display name (`name`, else
 * `preferred_username`) is kept for the page only. Only the scopes `openid
 * profile` are asked for: no e-mail address or other contact detail ever
 * reaches the service.
 */
import * as client from "openid-client";

export interface OidcSettings {
  /** The provider's issuer URL (its discovery document is under it). */
  issuer: string;
  clientId: string;
  /** For a confidential client; unset: a public client (PKCE alone). */
  clientSecret?: string | undefined;
  /** Longest one call to the provider may take, in seconds. Default 10. */
  timeoutSeconds?: number;
}

/** What the callback needs of the start of a flow (kept sealed in a short-lived cookie). */
export interface OidcFlow extends Record<string, unknown> {
  verifier: string;
  state: string;
  nonce: string;
  /** Where to go once signed in (a checked path under /account/). */
  next: string;
}

/** Who signed in. */
export interface OidcIdentity {
  sub: string;
  name: string;
}

export class OidcSignIn {
  private configuration: Promise<client.Configuration> | undefined;

  constructor(private readonly settings: OidcSettings) {}

  /** The provider's configuration, discovered once (again after a failure). */
  private configured(): Promise<client.Configuration> {
    this.configuration ??= this.discover().catch((error: unknown) => {
      this.configuration = undefined;
      throw error;
    });
    return this.configuration;
  }

  private async discover(): Promise<client.Configuration> {
    const { issuer, clientId, clientSecret } = this.settings;
    const insecure = new URL(issuer).protocol === "http:";
    const configuration = await client.discovery(
      new URL(issuer),
      clientId,
      clientSecret,
      clientSecret ? client.ClientSecretPost(clientSecret) : client.None(),
      {
        // An http: issuer is the operator's choice (a provider on the same host or network).
        ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
        timeout: this.settings.timeoutSeconds ?? 10,
      },
    );
    configuration.timeout = this.settings.timeoutSeconds ?? 10;
    return configuration;
  }

  /** Starts a flow: the provider's authorization URL, and what the callback must be given back. */
  async start(redirectUri: string, next: string): Promise<{ url: URL; flow: OidcFlow }> {
    const configuration = await this.configured();
    const verifier = client.randomPKCECodeVerifier();
    const flow: OidcFlow = { verifier, state: client.randomState(), nonce: client.randomNonce(), next };
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: "openid profile",
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state: flow.state,
      nonce: flow.nonce,
    });
    return { url, flow };
  }

  /** Finishes a flow at the callback URL the provider sent the browser to; throws if anything does not match. */
  async finish(callbackUrl: URL, flow: OidcFlow, redirectUri: string): Promise<OidcIdentity> {
    const configuration = await this.configured();
    // The redirect URI sent must be the one registered, whatever Host the callback came in on.
    const current = new URL(redirectUri);
    current.search = callbackUrl.search;
    const tokens = await client.authorizationCodeGrant(configuration, current, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims?.sub) throw new Error("the identity provider returned no subject");
    const nameIn = (c: Record<string, unknown>) =>
      [c.name, c.preferred_username].find((v): v is string => typeof v === "string" && v.trim() !== "");
    // A provider may keep the profile claims for its userinfo endpoint (oidc-provider does, by default).
    const name = nameIn(claims) ?? nameIn(await client.fetchUserInfo(configuration, tokens.access_token, claims.sub));
    return { sub: claims.sub, name: (name ?? claims.sub).slice(0, 200) };
  }
}
