// The calls the conformance suite makes: every tool of `pmgs-mcp --tools all` on its success
// path and on every error path it has. `expect` is "ok" with the record_type of a success, or
// the stable error code (and the argument named in details.argument) of an error.

/**
 * @param {Record<string, string>} ex named examples of the generated test package
 * @returns {Array<{label: string, tool: string, args: Record<string, unknown>,
 *   ok?: string, code?: string, argument?: string}>}
 */
export function cases(ex) {
  return [
    // lookup_classification
    { label: "lookup", tool: "lookup_classification", args: { scheme: "ipc", code: "G06F3/048" }, ok: "classification" },
    { label: "lookup full", tool: "lookup_classification", args: { scheme: "ipc", code: "G06F3/048", detail: "full" }, ok: "classification" },
    { label: "lookup typed with a space", tool: "lookup_classification", args: { scheme: "ipc", code: "G06F 3/048" }, ok: "classification" },
    { label: "lookup not found (not an error)", tool: "lookup_classification", args: { scheme: "fi", code: "A99Z99/99" }, ok: "classification" },
    { label: "lookup malformed code", tool: "lookup_classification", args: { scheme: "ipc", code: "!!" }, code: "INVALID_CODE", argument: "code" },
    { label: "lookup unknown scheme", tool: "lookup_classification", args: { scheme: "cpc", code: "G06F" }, code: "INVALID_SCHEME", argument: "scheme" },
    { label: "lookup edition for fi", tool: "lookup_classification", args: { scheme: "fi", code: "A", edition: "8U" }, code: "INVALID_EDITION", argument: "edition" },
    { label: "lookup malformed version", tool: "lookup_classification", args: { scheme: "ipc", code: "G06F", version: "x" }, code: "INVALID_VERSION", argument: "version" },
    { label: "lookup code of wrong type", tool: "lookup_classification", args: { scheme: "ipc", code: 123 }, code: "INVALID_CODE", argument: "code" },
    { label: "lookup missing code", tool: "lookup_classification", args: { scheme: "ipc" }, code: "INVALID_ARGUMENT", argument: "code" },
    { label: "lookup unknown argument", tool: "lookup_classification", args: { scheme: "ipc", code: "G06F", foo: 1 }, code: "INVALID_ARGUMENT", argument: "foo" },
    { label: "lookup relation_limit too large", tool: "lookup_classification", args: { scheme: "ipc", code: "G06F", relation_limit: 500 }, code: "INVALID_LIMIT", argument: "relation_limit" },
    { label: "lookup relation_offset negative", tool: "lookup_classification", args: { scheme: "ipc", code: "G06F", relation_offset: -1 }, code: "INVALID_OFFSET", argument: "relation_offset" },
    { label: "lookup unknown release", tool: "lookup_classification", args: { scheme: "ipc", code: "G06F", release: "JPPM1" }, code: "RELEASE_NOT_FOUND", argument: "release" },
    // search_pmgs
    { label: "search", tool: "search_pmgs", args: { query: ex.common_phrase, limit: 5 }, ok: "combined_search_page" },
    { label: "search two characters", tool: "search_pmgs", args: { query: ex.two_char_word }, ok: "combined_search_page" },
    { label: "search empty query (not an error)", tool: "search_pmgs", args: { query: "" }, ok: "combined_search_page" },
    { label: "search blank query (not an error)", tool: "search_pmgs", args: { query: "   " }, ok: "combined_search_page" },
    { label: "search limit too large", tool: "search_pmgs", args: { query: "x", limit: 100000 }, code: "INVALID_LIMIT", argument: "limit" },
    { label: "search limit zero", tool: "search_pmgs", args: { query: "x", limit: 0 }, code: "INVALID_LIMIT", argument: "limit" },
    { label: "search limit of wrong type", tool: "search_pmgs", args: { query: "x", limit: "5" }, code: "INVALID_LIMIT", argument: "limit" },
    { label: "search classification_offset negative", tool: "search_pmgs", args: { query: "x", classification_offset: -1 }, code: "INVALID_OFFSET", argument: "classification_offset" },
    { label: "search document_offset of wrong type", tool: "search_pmgs", args: { query: "x", document_offset: 1.5 }, code: "INVALID_OFFSET", argument: "document_offset" },
    { label: "search unknown scheme", tool: "search_pmgs", args: { query: "x", schemes: ["cpc"] }, code: "INVALID_SCHEME", argument: "schemes[0]" },
    { label: "search query too long", tool: "search_pmgs", args: { query: "あ".repeat(513) }, code: "INVALID_QUERY", argument: "query" },
    { label: "search query of wrong type", tool: "search_pmgs", args: { query: ["x"] }, code: "INVALID_QUERY", argument: "query" },
    { label: "search unknown content type", tool: "search_pmgs", args: { query: "x", content_types: ["image"] }, code: "INVALID_ARGUMENT", argument: "content_types[0]" },
    // get_pmgs_document
    { label: "document", tool: "get_pmgs_document", args: { document_id: ex.injected_instruction_document, segment_limit: 3 }, ok: "document_page" },
    { label: "document section", tool: "get_pmgs_document", args: { document_id: "judge", section: 2 }, ok: "document_page" },
    { label: "document unknown id", tool: "get_pmgs_document", args: { document_id: "nope:missing" }, code: "DOCUMENT_NOT_FOUND", argument: "document_id" },
    { label: "document id of wrong type", tool: "get_pmgs_document", args: { document_id: 7 }, code: "INVALID_ARGUMENT", argument: "document_id" },
    { label: "document two selectors", tool: "get_pmgs_document", args: { document_id: "judge", page: 1, section: 1 }, code: "INVALID_DOCUMENT_SELECTOR" },
    { label: "document unknown section", tool: "get_pmgs_document", args: { document_id: "judge", section: 999 }, code: "DOCUMENT_SELECTOR_NOT_FOUND" },
    { label: "document section zero", tool: "get_pmgs_document", args: { document_id: "judge", section: 0 }, code: "INVALID_DOCUMENT_SELECTOR", argument: "section" },
    { label: "document segment_limit too large", tool: "get_pmgs_document", args: { document_id: "judge", segment_limit: 201 }, code: "INVALID_LIMIT", argument: "segment_limit" },
    { label: "document segment_offset negative", tool: "get_pmgs_document", args: { document_id: "judge", segment_offset: -5 }, code: "INVALID_OFFSET", argument: "segment_offset" },
    { label: "document related_classification_limit zero", tool: "get_pmgs_document", args: { document_id: "judge", related_classification_limit: 0 }, code: "INVALID_LIMIT", argument: "related_classification_limit" },
    { label: "document related_classification_offset of wrong type", tool: "get_pmgs_document", args: { document_id: "judge", related_classification_offset: "0" }, code: "INVALID_OFFSET", argument: "related_classification_offset" },
    // search_pmgs ranked (issue 14)
    { label: "search ranked any", tool: "search_pmgs", args: { query: `${ex.two_char_word} ${ex.common_phrase}`, order: "relevance", match: "any", min_score: 0.2 }, ok: "combined_search_page" },
    { label: "search unknown order", tool: "search_pmgs", args: { query: "x", order: "best" }, code: "INVALID_ARGUMENT", argument: "order" },
    // browse tools (--tools all)
    { label: "search_text", tool: "search_text", args: { content: `${ex.two_char_word} ${ex.common_phrase}` }, ok: "text_search_result" },
    { label: "search_text empty content (not an error)", tool: "search_text", args: { content: "" }, ok: "text_search_result" },
    { label: "search_text min_score too large", tool: "search_text", args: { content: "x", min_score: 2 }, code: "INVALID_ARGUMENT", argument: "min_score" },
    { label: "search_text unknown category", tool: "search_text", args: { content: "x", category: "cpc" }, code: "INVALID_ARGUMENT", argument: "category" },
    { label: "list_documents", tool: "list_documents", args: {}, ok: "document_list_page" },
    { label: "list_documents past the end (not an error)", tool: "list_documents", args: { limit: 20, page: 10000 }, ok: "document_list_page" },
    { label: "list_documents limit too large", tool: "list_documents", args: { limit: 101 }, code: "INVALID_LIMIT", argument: "limit" },
    { label: "list_documents page zero", tool: "list_documents", args: { page: 0 }, code: "INVALID_ARGUMENT", argument: "page" },
    { label: "list_documents unknown kind", tool: "list_documents", args: { kind: "novel" }, code: "INVALID_ARGUMENT", argument: "kind" },
    { label: "list_categories", tool: "list_categories", args: {}, ok: "categories" },
    { label: "list_categories unknown argument", tool: "list_categories", args: { kind: "judge" }, code: "INVALID_ARGUMENT", argument: "kind" },
    { label: "get_document_count", tool: "get_document_count", args: { kind: "fi_handbook" }, ok: "document_count" },
    { label: "get_document_count kind of wrong type", tool: "get_document_count", args: { kind: 3 }, code: "INVALID_ARGUMENT", argument: "kind" },
    { label: "release_info", tool: "release_info", args: {}, ok: "release_info" },
    { label: "release_info release of wrong type", tool: "release_info", args: { release: 2026 }, code: "INVALID_ARGUMENT", argument: "release" },
    { label: "release_info unknown release", tool: "release_info", args: { release: "JPPM1" }, code: "RELEASE_NOT_FOUND", argument: "release" },
    // check_classification_codes (issue 31; --tools all)
    { label: "check codes", tool: "check_classification_codes", args: { text: "G06F3/048/IP + A99Z99/99/FI + G06F3/048" }, ok: "code_check" },
    { label: "check codes bad syntax", tool: "check_classification_codes", args: { text: "G06F3/048/FI + (G06F3/0482/FI" }, code: "INVALID_QUERY" },
    { label: "check codes unknown tag", tool: "check_classification_codes", args: { text: "G06F3/048/ZZ" }, code: "INVALID_QUERY" },
    { label: "check codes over 200", tool: "check_classification_codes", args: { text: "G06F3/048/IP\n".repeat(201) }, code: "TOO_MANY_ITEMS" },
    { label: "check codes missing text", tool: "check_classification_codes", args: {}, code: "INVALID_ARGUMENT", argument: "text" },
    { label: "check codes unknown scheme", tool: "check_classification_codes", args: { text: "G06F3/048", scheme: "cpc" }, code: "INVALID_SCHEME", argument: "scheme" },
  ];
}

/** Every tool `pmgs-mcp --tools all` lists, in order. */
export const ALL_TOOLS = [
  "lookup_classification",
  "search_pmgs",
  "get_pmgs_document",
  "search_text",
  "list_documents",
  "list_categories",
  "get_document_count",
  "release_info",
  "check_classification_codes",
];
