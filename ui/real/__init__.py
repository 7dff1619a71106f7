"""The real-model page (pages/8_real.py), part by part: which model it reads (`model`), the
loaded model's reading of the sentence (`reading`), its attention maps (`maps`), the port-bug
clinic on it (`port`), and how the page says a model in words (`words`)."""
