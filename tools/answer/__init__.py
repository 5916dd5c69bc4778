"""The answer stage's tools: anchors, answer text, quoted drafts, support, grounding, citations, confidence."""
