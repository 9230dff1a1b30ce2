export {
  CHAT_ROLES,
  ChatMessage,
  type ChatRole,
  FINISH_REASONS,
  type FinishReason,
  type ModelClient,
  type ModelRequest,
  ModelResponse,
  ModelToolCall,
  type ModelToolSpec,
  ModelUsage,
  parseToolArguments,
} from "./model/model-client.js";
export {
  isRetryableModelErrorCode,
  MODEL_ERROR_CODES,
  type ModelErrorCode,
  shouldRetryModelError,
} from "./model/model-errors.js";
export {
  createOpenAiClient,
  DEFAULT_MODEL_TIMEOUT_MS,
  type OpenAiClientOptions,
} from "./model/openai-client.js";
export {
  createScriptedModelClient,
  loadScriptedModel,
  scriptedModelFromYaml,
} from "./model/scripted-client.js";
export {
  parseScriptedScript,
  ScriptedScript,
  ScriptedToolCall,
  ScriptedTurn,
} from "./model/scripted-script.js";
