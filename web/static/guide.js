// The learner's guide (/guide): both languages are on the page; the switch shows one and remembers it for the
// practice page too (the same cookie). Headings get anchors, so /guide#try leads to the Try section.
"use strict";

const TEXT = JSON.parse(document.getElementById("page-text").textContent);
const ANCHORS = { zh: ["run", "hidden", "op-trace", "hints", "try", "terminal", "time"],
  en: ["run", "hidden", "op-trace", "hints", "try", "terminal", "time"] };

function show(lang) {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  for (const article of document.querySelectorAll("[data-guide]")) article.hidden = article.dataset.guide !== lang;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = TEXT[lang][node.dataset.t] ?? node.textContent;
  for (const b of document.querySelectorAll(".lang-switch button")) b.classList.toggle("active", b.dataset.lang === lang);
  document.title = `${TEXT[lang].guideTitle} · ${TEXT[lang].brand}`;
  const wanted = location.hash.slice(1);
  const target = wanted && document.querySelector(`[data-guide="${lang}"] [id="${wanted}"]`);
  if (target) target.scrollIntoView();
}

document.addEventListener("DOMContentLoaded", () => {
  for (const article of document.querySelectorAll("[data-guide]")) {
    const names = ANCHORS[article.dataset.guide];
    article.querySelectorAll("h2").forEach((h, i) => { if (names[i]) h.id = names[i]; });
  }
  for (const b of document.querySelectorAll(".lang-switch button")) {
    b.addEventListener("click", () => {
      document.cookie = `practice_lang=${b.dataset.lang}; path=/; max-age=31536000; SameSite=Lax`;
      show(b.dataset.lang);
    });
  }
  show(document.querySelector("[data-guide]:not([hidden])").dataset.guide);
});
