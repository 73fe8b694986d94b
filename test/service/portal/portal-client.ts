import { Agent, type Dispatcher, request } from "undici";
import type { TestService } from "../harness.js";

/** A browser's view of the portal over HTTP: a cookie jar, forms posted as a browser posts them. */
export interface PortalAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export class PortalClient {
  readonly cookies = new Map<string, string>();
  private readonly dispatcher: Agent;

  constructor(private readonly service: TestService) {
    this.dispatcher = new Agent(service.service.ca ? { connect: { ca: service.service.ca } } : {});
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<PortalAnswer> {
    return this.send("GET", path, undefined, headers);
  }

  async post(path: string, form: Record<string, string>): Promise<PortalAnswer> {
    return this.send("POST", path, new URLSearchParams(form).toString());
  }

  /** The sign-in form's CSRF value, as the page holds it. */
  async signInForm(): Promise<string> {
    const page = await this.get("/portal");
    return hiddenCsrf(page.text);
  }

  async signIn(token: string): Promise<PortalAnswer> {
    const csrf = await this.signInForm();
    return this.post("/portal/sign-in", { csrf, token });
  }

  /** Follows a one-time sign-in link as a browser does: its page, then the page's button (a POST). */
  async followSignInLink(path: string): Promise<PortalAnswer> {
    const page = await this.get(path);
    if (page.status !== 200) return page;
    return this.post("/portal/sign-in/code", {
      csrf: hiddenCsrf(page.text),
      code: hiddenField(page.text, "code"),
    });
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private async send(
    method: "GET" | "POST",
    path: string,
    body?: string,
    extra: Record<string, string> = {},
  ) {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await request(`${this.service.url}${path}`, {
      method,
      dispatcher: this.dispatcher,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(body !== undefined ? { "content-type": "application/x-www-form-urlencoded" } : {}),
        ...extra,
      },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await response.body.text();
    for (const line of setCookies(response.headers["set-cookie"])) {
      const [pair = ""] = line.split(";");
      const separator = pair.indexOf("=");
      const name = pair.slice(0, separator);
      const value = pair.slice(separator + 1);
      if (/max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.statusCode, headers: response.headers, text };
  }
}

export function setCookies(header: string | string[] | undefined): string[] {
  return header === undefined ? [] : Array.isArray(header) ? header : [header];
}

export function hiddenCsrf(page: string): string {
  return hiddenField(page, "csrf");
}

export function hiddenField(page: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]+)"`).exec(page);
  if (!match?.[1]) throw new Error(`no ${name} field in the page`);
  return match[1];
}

/**
 * A one-time sign-in link (`https://host/portal/sign-in/code/<code>`) followed as a browser does, without a
 * cookie jar: its page, then the page's button, a POST with the page's CSRF cookie. The POST's answer.
 */
export async function redeemSignInLink(link: string, dispatcher: Dispatcher): Promise<PortalAnswer> {
  const page = await request(link, { dispatcher });
  const text = await page.body.text();
  if (page.statusCode !== 200) return { status: page.statusCode, headers: page.headers, text };
  const [csrfCookie = ""] = setCookies(page.headers["set-cookie"]);
  const answer = await request(new URL("/portal/sign-in/code", link).href, {
    method: "POST",
    dispatcher,
    headers: {
      cookie: csrfCookie.split(";")[0] as string,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ csrf: hiddenCsrf(text), code: hiddenField(text, "code") }).toString(),
  });
  return { status: answer.statusCode, headers: answer.headers, text: await answer.body.text() };
}
