/**
 * Provider identifiers an upstream's message may carry (contract section 14, "what leaves the
 * gateway"): OpenAI organisation ids and keys (`org-…`, `sk-…`, `sk-proj-…`, `sk-ant-…`), account,
 * project, organisation and user ids written `acct_…`, `proj_…`, `org_…`, `user_…`, UUIDs, and long
 * hex runs (account ids of other providers). Each is matched from a word start so a word that
 * merely contains `sk-` (`task-force`) is left alone.
 */
const IDENTIFIERS =
  /\b(sk|org)-[A-Za-z0-9_-]{3,}|\b(acct|proj|org|user)_[A-Za-z0-9_-]{3,}|\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b|\b[0-9a-fA-F]{16,}\b/g;

/**
 * The one masking of an upstream's message before a client sees it (an upstream 400 about the
 * client's own request is passed on this way): every identifier keeps its kind (`org-***`,
 * `acct_***`), loses its value.
 */
export function maskIdentifiers(text: string): string {
  return text.replace(IDENTIFIERS, (_match, dashed: string | undefined, underscored: string | undefined) => {
    if (dashed !== undefined) return `${dashed}-***`;
    if (underscored !== undefined) return `${underscored}_***`;
    return "***";
  });
}
