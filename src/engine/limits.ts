/**
 * Characters a candidate may hold back before they are shown as text: responseFix.bufferLimit's
 * default. Its own module so the options spec reads it without loading the engine (the plugin
 * starts with its options and loads the engine in the background).
 */
export const DEFAULT_BUFFER_LIMIT = 65536;
