// A real OAuth issuer for tests, as far as a resource server sees one: an HTTP server on loopback
// publishing a JWKS made with jose, and access tokens (JWTs) signed with its key, or with a key it
// does not publish.
import {exportJWK, generateKeyPair, type JWTPayload, SignJWT} from 'jose'
import {createServer, type Server} from 'node:http'

const KID = 'test-key-1'

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey']

export interface TokenOptions {
  sub?: string
  aud?: string
  iss?: string
  /** Seconds from now; negative: expired. Default 300. */
  expiresIn?: number
  /** Sign with a key the issuer does not publish (same kid). */
  foreignKey?: boolean
  claims?: JWTPayload
}

export class JwtIssuer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly keys: {own: SigningKey; foreign: SigningKey},
    /** Requests of the JWKS so far. */
    readonly served: {jwks: number},
  ) {}

  static async start(): Promise<JwtIssuer> {
    const {privateKey, publicKey} = await generateKeyPair('ES256')
    const foreign = await generateKeyPair('ES256')
    const jwks = {keys: [{...(await exportJWK(publicKey)), kid: KID, alg: 'ES256', use: 'sig'}]}
    const served = {jwks: 0}
    const server = createServer((req, res) => {
      if (req.url === '/jwks') {
        served.jwks++
        res.writeHead(200, {'Content-Type': 'application/json'}).end(JSON.stringify(jwks))
        return
      }
      res.writeHead(404).end()
    })
    await new Promise<void>((done) => {
      server.listen(0, '127.0.0.1', done)
    })
    const {port} = server.address() as {port: number}
    return new JwtIssuer(
      server,
      `http://127.0.0.1:${port}`,
      {own: privateKey, foreign: foreign.privateKey},
      served,
    )
  }

  get jwksUri(): string {
    return `${this.url}/jwks`
  }

  /** An access token for `aud` (default: none) from this issuer, or as `options` bend it. */
  async token(options: TokenOptions = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000)
    const jwt = new SignJWT({...options.claims})
      .setProtectedHeader({alg: 'ES256', kid: KID, typ: 'at+jwt'})
      .setIssuer(options.iss ?? this.url)
      .setSubject(options.sub ?? 'alice')
      .setIssuedAt(now - 5)
      .setExpirationTime(now + (options.expiresIn ?? 300))
    if (options.aud !== undefined) jwt.setAudience(options.aud)
    return jwt.sign(options.foreignKey ? this.keys.foreign : this.keys.own)
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise((done) => {
      this.server.close(done)
    })
  }
}
