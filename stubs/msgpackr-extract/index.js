// msgpackr treats a falsy export as "no native extractor" and uses its JavaScript decoder.
module.exports = null;
