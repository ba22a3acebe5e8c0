/** The part of negotiator 1.x the gateway uses (@types/negotiator describes 0.6, without `preferred`). */
declare module "negotiator" {
  export default class Negotiator {
    constructor(request: { headers: Record<string, string | string[] | undefined> });
    /** The client's most preferred of `available`, ties going to the earliest of `options.preferred`. */
    encoding(available: readonly string[], options?: { preferred?: readonly string[] }): string | undefined;
  }
}
