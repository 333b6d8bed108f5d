/**
 * The in-tab orchestrator: the model manifest and loading, the prompts, constrained decoding and
 * the teacher data the tiny model is trained on. Other layers import it only through this file.
 */
export {};
