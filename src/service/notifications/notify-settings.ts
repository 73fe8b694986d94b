/** How the service delivers notifications: part of the service's configuration (config.ts), read by the notifier. */
export interface NotifySettings {
  /** Extra CA (PEM) trusted for `notify_url`, on top of Node's roots and NODE_EXTRA_CA_CERTS. */
  readonly notifyCa?: string;
  /**
   * Addresses and CIDR ranges `notify_url` may reach although they are loopback, private, link-local or
   * otherwise internal (refused by default: notify-destinations.ts). @default none
   */
  readonly notifyAllow: readonly string[];
  /** First retry delay of a notification; later ones double (full jitter). @default 1 s */
  readonly notifyRetryBaseMs: number;
  /** Longest wait between two attempts. @default 10 min */
  readonly notifyRetryMaxMs: number;
  /** A notification not acknowledged within this time is abandoned. @default 24 h */
  readonly notifyGiveUpMs: number;
  /** How long one notification POST may take. @default 10 s */
  readonly notifyTimeoutMs: number;
  /** Notifications of different jobs delivered at the same time. @default 16 */
  readonly notifyConcurrency: number;
}
