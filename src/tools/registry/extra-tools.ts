import type { Cluster, Redis } from "ioredis";
import type { AnyTool } from "../../catalog/index.js";
import type { Logger } from "../../logging/index.js";
import type { Clock } from "../../shared/index.js";
import { createKnowledgeIndexTool } from "../knowledge/knowledge-index.js";
import { createKnowledgeSearchTool } from "../knowledge/knowledge-search.js";
import { KnowledgeStore } from "../knowledge/knowledge-store.js";
import { createImageGenerateTool } from "../media/image-generate.js";
import type { MediaSettings } from "../media/media-provider.js";
import { createTextToSpeechTool } from "../media/text-to-speech.js";
import { createVisionAnalyzeTool } from "../media/vision-analyze.js";
import { createMessageTool } from "../messaging/message.js";
import type { MessageSender } from "../messaging/message-port.js";
import { createNotifyTool } from "../messaging/notify.js";
import type { FetchFn } from "../provider-http.js";
import { createSessionSearchTool, type SessionArchive } from "../sessions/session-search.js";
import { createSkillInstallTool } from "../skills/skill-install.js";
import { createSkillManageTool } from "../skills/skill-manage.js";
import { createSkillViewTool } from "../skills/skill-view.js";
import { createSkillsListTool } from "../skills/skills-list.js";
import { createWebFetchTool } from "../web/web-fetch.js";
import type { WebFetchOptions } from "../web/web-ports.js";
import { createWebSearchTool, type WebSearchSettings } from "../web/web-search.js";

/**
 * What the web, knowledge, skills, media and messaging tools need, built once per worker from config
 * by the caller (tools never read config): functions for the layers above tools (the guard's SSRF
 * check, policy's host list), endpoints with their keys already resolved, and clients.
 */
export interface ExtraToolRuntime {
  /**
   * web_fetch: `checkUrl` = guard's `checkUrl(url, resolver)` with a DNS resolver; `lookup` = the
   * same resolver (used only for an internal URL a person approved); `hostPolicy` = undefined for
   * network_policy allow, else policy's `isHostAllowed(host, execution.allowed_hosts)` turned into
   * a refusal reason. `hostPolicy` also governs the search, media and webhook providers' hosts.
   */
  readonly web: WebFetchOptions;
  /** HTTP client of provider APIs (search, media). Default `globalThis.fetch`. */
  readonly fetch?: FetchFn;
  /** The search provider; undefined leaves web_search not ready (and saying why). */
  readonly search?: WebSearchSettings;
  /** OpenAI-compatible media endpoints; a missing one leaves its tool not ready. */
  readonly media?: MediaSettings;
  /** Where skills live (a folder per skill with a SKILL.md); undefined leaves the skill tools not ready. */
  readonly skillsDir?: string;
  /** Redis for the knowledge base; undefined leaves the knowledge tools not ready. */
  readonly knowledge?: { readonly redis: Redis | Cluster; readonly keyPrefix: string };
  /** Delivery of notify and message (see createMessageSender); undefined leaves them not ready. */
  readonly sender?: MessageSender;
  /** Past runs' transcripts for session_search; undefined leaves it not ready. */
  readonly sessions?: SessionArchive;
  readonly clock: Clock;
  /** Told once, at debug level, which of these tools are not ready and why. */
  readonly logger?: Pick<Logger, "debug">;
}

/**
 * The web, knowledge, skills, media and messaging tools: web_fetch, web_search, knowledge_index,
 * knowledge_search, skills_list, skill_view, skill_install, skill_manage, vision_analyze,
 * image_generate, text_to_speech, notify, message, session_search. Every one is returned; those whose dependency is
 * missing report not ready with the reason (declared ≠ present), so `tools list` and `policy explain`
 * can say why.
 */
export function createExtraTools(runtime: ExtraToolRuntime): AnyTool[] {
  const fetch = runtime.fetch ?? globalThis.fetch;
  const hostPolicy = runtime.web.hostPolicy;
  const knowledge = runtime.knowledge ? new KnowledgeStore(runtime.knowledge) : undefined;
  const media = runtime.media ?? {};
  const tools: AnyTool[] = [
    createWebFetchTool(runtime.web),
    createWebSearchTool({ settings: runtime.search, fetch, hostPolicy }),
    createKnowledgeIndexTool(knowledge),
    createKnowledgeSearchTool(knowledge),
    createSkillsListTool(runtime.skillsDir),
    createSkillViewTool(runtime.skillsDir),
    createSkillInstallTool({ skillsDir: runtime.skillsDir, clock: runtime.clock }),
    createSkillManageTool(runtime.skillsDir),
    createVisionAnalyzeTool({ endpoint: media.vision, fetch, hostPolicy }),
    createImageGenerateTool({ endpoint: media.image, fetch, hostPolicy }),
    createTextToSpeechTool({ endpoint: media.tts, fetch, hostPolicy }),
    createNotifyTool(runtime.sender),
    createMessageTool(runtime.sender),
    createSessionSearchTool(runtime.sessions),
  ];
  for (const tool of tools) {
    const readiness = tool.readinessDetail();
    if (!readiness.ready)
      runtime.logger?.debug({ tool: tool.name, detail: readiness.detail }, "tool not ready");
  }
  return tools;
}
