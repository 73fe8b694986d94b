const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/**
 * Whether a caller at `remoteAddress` may use the admin token: the admin API and the portal's all-teams view
 * answer loopback callers only, unless the service was started with remote admin allowed (`--admin-remote`).
 */
export function adminReachableFrom(
  config: { readonly adminRemote: boolean },
  remoteAddress: string | undefined,
) {
  return config.adminRemote || LOOPBACK.test(remoteAddress ?? "");
}
