// Send the signed deep-linking response back to the platform at once (the button does the same without script).
document.getElementById("lti-autosubmit").submit();
