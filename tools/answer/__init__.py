"""The answer stage: reading the model's replies and checking them against the passages.

Here: the reader's calls and drafts (`reader.py`), answer text and refusals, quoted drafts, support,
grounding, citations, dates and numbers in short answers, the second reading, how an answer stands
to the question's names and topic, whether a Chinese answer's quotes state what was asked
(`question_match.py`), and retrieval and generation confidence. Not here: what the
question names or asks for (`tools/question/`), the call's budget and faults (`tools/llm/`), and
which node reads when (`agents/`).
"""
